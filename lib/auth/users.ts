import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { accounts, users } from "@/db/schema";
import { generatePassword, hashPassword, verifyPassword } from "./passwords";

export const SignUpInput = z.strictObject({
  name: z.string().trim().min(1, "Enter your name.").max(120),
  company: z.string().trim().min(1, "Enter your company's name.").max(120),
  email: z.email("Enter a valid email address.").max(254).transform((email) => email.toLowerCase()),
  password: z.string().min(10, "Use at least 10 characters.").max(200),
});

export type SessionUser = { id: string; email: string; name: string | null; organizationId: string };

/** The user for an email and password, or null (same answer for unknown email and wrong password). */
export async function verifyCredentials(email: string, password: string): Promise<SessionUser | null> {
  const db = await getDb();
  const [user] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
  // An unknown email costs the same hash as a wrong password, so timing does not tell which emails exist.
  if (!user?.passwordHash) {
    await verifyPassword(password, await dummyHash());
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  return { id: user.id, email: user.email, name: user.name, organizationId: user.organizationId };
}

let dummy: Promise<string> | undefined;
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(generatePassword());
  return dummy;
}

export type OrganizationAccount = { id: string; name: string; livemode: boolean; clockOffsetMs: number };

/** The accounts a user may see: those of their organization, live first. */
export async function organizationAccounts(organizationId: string): Promise<OrganizationAccount[]> {
  const db = await getDb();
  const rows = await db
    .select({ id: accounts.id, name: accounts.name, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs })
    .from(accounts)
    .where(eq(accounts.organizationId, organizationId))
    .orderBy(accounts.created, accounts.id);
  return rows.sort((a, b) => Number(b.livemode) - Number(a.livemode));
}

/** Any account by id (operators act on every organization's accounts). */
export async function findAccount(accountId: string): Promise<(OrganizationAccount & { organizationId: string }) | null> {
  const db = await getDb();
  const [row] = await db
    .select({
      id: accounts.id,
      name: accounts.name,
      livemode: accounts.livemode,
      clockOffsetMs: accounts.clockOffsetMs,
      organizationId: accounts.organizationId,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row ?? null;
}

/** The account if it belongs to the organization, else null. */
export async function findOrganizationAccount(
  organizationId: string,
  accountId: string,
): Promise<OrganizationAccount | null> {
  const row = await findAccount(accountId);
  return row && row.organizationId === organizationId
    ? { id: row.id, name: row.name, livemode: row.livemode, clockOffsetMs: row.clockOffsetMs }
    : null;
}
