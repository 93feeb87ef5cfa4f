import { eq } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { users } from "@/db/schema";
import { hashPassword } from "@/lib/auth/passwords";
import { SignUpInput, type SessionUser } from "@/lib/auth/users";
import { ServiceError, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { log, safeError } from "@/lib/log";
import { createOrganization } from "@/lib/organizations/service";
import { enrollOrganization } from "@/lib/platform/service";
import { assertSignUpAllowed } from "./signup";

/*
 * Joining: a user and their new organization (sign-up by password or by OAuth), enrolled in
 * platform billing. Above lib/auth (which checks who is signed in) because it creates organizations.
 */

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
