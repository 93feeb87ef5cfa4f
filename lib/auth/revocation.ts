import { eq, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { users } from "@/db/schema";

/**
 * Server-side session revocation for next-auth's stateless JWT sessions: a session names the
 * user's `session_version` it was issued under and is valid only while that is still current.
 * Signing out and changing the password increment it, ending the user's sessions at once, on
 * every device (the JWT alone can no longer be replayed).
 *
 * The check costs one indexed read per authenticated dashboard request; a short per-process
 * cache would let a revoked cookie live on for its lifetime, so there is none.
 */
export async function currentSessionVersion(userId: string): Promise<number | null> {
  const db = await getDb();
  const [row] = await db.select({ version: users.sessionVersion }).from(users).where(eq(users.id, userId));
  return row?.version ?? null;
}

/**
 * The user behind a current session: their role and organization as they stand now (a demotion or
 * removal applies to the next request), or null when the session was revoked or the user removed.
 */
export async function currentSessionUser(
  userId: string | undefined,
  version: number | undefined,
): Promise<{ role: (typeof users.$inferSelect)["role"]; organizationId: string } | null> {
  if (!userId) return null;
  const db = await getDb();
  const [row] = await db
    .select({ version: users.sessionVersion, role: users.role, organizationId: users.organizationId })
    .from(users)
    .where(eq(users.id, userId));
  return row && row.version === (version ?? 0) ? { role: row.role, organizationId: row.organizationId } : null;
}

/** Ends every session of the user (sign-out, password change). */
export async function revokeSessions(userId: string): Promise<void> {
  const db = await getDb();
  await db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, userId));
}
