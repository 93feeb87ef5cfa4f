import { lt, sql } from "drizzle-orm";
import { getDb } from "./client";
import { rateLimits } from "./schema";

/**
 * Deletes the shared rate-limit counts whose window has ended (an expired row counts nothing: the
 * store starts a fresh window over it), so `rate_limits` holds at most the keys of the current
 * windows however many distinct keys a flood brings. Run on a schedule by every background mode:
 * the embedded process (RATE_LIMIT_PURGE_MS, instrumentation-node.ts), Inngest's clock tick and
 * Vercel's clock cron. The number of rows deleted.
 */
export async function purgeExpiredRateLimits(): Promise<number> {
  const db = await getDb();
  const deleted = await db.delete(rateLimits).where(lt(rateLimits.expire, sql`now()`)).returning({ key: rateLimits.key });
  return deleted.length;
}
