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

export async function isSessionCurrent(userId: string | undefined, version: number | undefined): Promise<boolean> {
  if (!userId) return false;
  const current = await currentSessionVersion(userId);
  return current !== null && current === (version ?? 0);
}

/** Ends every session of the user (sign-out, password change). */
export async function revokeSessions(userId: string): Promise<void> {
  const db = await getDb();
  await db.update(users).set({ sessionVersion: sql`${users.sessionVersion} + 1` }).where(eq(users.id, userId));
}
