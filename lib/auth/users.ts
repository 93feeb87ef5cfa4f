import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { accounts, users } from "@/db/schema";
import { ServiceError, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { createOrganization } from "@/lib/organizations/service";
import { enrollOrganization } from "@/lib/platform/service";
import { assertSignUpAllowed } from "@/lib/teams/signup";
import { generatePassword, hashPassword, verifyPassword } from "./passwords";
import { log, safeError } from "@/lib/log";

export const SignUpInput = z.strictObject({
  name: z.string().trim().min(1, "Enter your name.").max(120),
  company: z.string().trim().min(1, "Enter your company's name.").max(120),
  email: z.email("Enter a valid email address.").max(254).transform((email) => email.toLowerCase()),
  password: z.string().min(10, "Use at least 10 characters.").max(200),
});

export type SessionUser = { id: string; email: string; name: string | null; organizationId: string };

/** A new organization (live and sandbox accounts) with its first user. */
export async function signUp(input: z.input<typeof SignUpInput>): Promise<SessionUser> {
  const parsed = SignUpInput.safeParse(input);
  if (!parsed.success) {
    throw validationFailed(parsed.error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message })));
  }
  const { name, company, email, password } = parsed.data;
  const passwordHash = await hashPassword(password);
  const db = await getDb();
  const user = await db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (existing) throw new ServiceError("conflict", "An account with this email already exists. Sign in instead.");
    await assertSignUpAllowed(tx);
    const { organizationId } = await createOrganization(tx, { name: company });
    const id = newId("user");
    await tx.insert(users).values({ id, organizationId, email, name, passwordHash });
    return { id, email, name, organizationId };
  });
  await enrollNewOrganization({ organizationId: user.organizationId, email, name: company });
  return user;
}

/**
 * With platform billing on, a new organization starts trialing the platform (off, the default,
 * enrollment does nothing). Enrollment runs after the organization is
 * committed; should it fail, sign-up still succeeds and the organization reads `orphaned` (its
 * billing status says exactly that) until `npm run platform -- enroll` finishes it.
 */
export async function enrollNewOrganization(input: { organizationId: string; email: string; name: string }): Promise<void> {
  try {
    await enrollOrganization(input);
  } catch (error) {
    log().error({ organization_id: input.organizationId, err: safeError(error) }, "could not enroll organization in platform billing");
  }
}

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

/** OAuth sign-in: the user with this email, or a new organization for them (sign-up by OAuth). */
export async function findOrCreateOAuthUser(input: { email: string; name: string | null }): Promise<SessionUser> {
  const email = input.email.toLowerCase();
  const db = await getDb();
  const [user] = await db.select().from(users).where(eq(users.email, email));
  if (user) return { id: user.id, email: user.email, name: user.name, organizationId: user.organizationId };
  const company = input.name ? `${input.name}'s company` : email;
  const created = await db.transaction(async (tx) => {
    // A new organization by OAuth follows SIGNUP like a password sign-up (an invitee signs up by link).
    await assertSignUpAllowed(tx);
    const { organizationId } = await createOrganization(tx, { name: company });
    const id = newId("user");
    await tx.insert(users).values({ id, organizationId, email, name: input.name });
    return { id, email, name: input.name, organizationId };
  });
  await enrollNewOrganization({ organizationId: created.organizationId, email, name: company });
  return created;
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
