import { getDb } from "@/db/client";
import { compactListCounts } from "@/db/list-totals";
import { purgeExpiredRateLimits } from "@/db/rate-limits";
import { Poller } from "./poller";

/**
 * How often a long-lived process folds the list-count deltas in (db/list-totals.ts). A total
 * reads the deltas written since, so this bounds its cost (at 1,000 writes a second, about 2,000
 * rows of one key), not its exactness.
 */
export const LIST_COUNT_COMPACTION_MS = 2_000;

/** Folds every pending list-count delta in (the Inngest and cron sweeps call it too). */
export async function compactListCountsNow(): Promise<number> {
  return compactListCounts(await getDb());
}

const COMPACTOR = Symbol.for("billing-service.list-count-compactor");
type GlobalWithCompactor = typeof globalThis & { [COMPACTOR]?: Poller };

/** The process's compactor (one per process, however often Next.js bundles this module). */
export function listCountCompactor(): Poller {
  const store = globalThis as GlobalWithCompactor;
  return (store[COMPACTOR] ??= new Poller(compactListCountsNow, "list count compaction failed"));
}

const PURGER = Symbol.for("billing-service.rate-limit-purger");
type GlobalWithPurger = typeof globalThis & { [PURGER]?: Poller };

/** The process's purge of expired rate-limit rows (lib/api/rate-limit.ts), one per process. */
export function rateLimitPurger(): Poller {
  const store = globalThis as GlobalWithPurger;
  return (store[PURGER] ??= new Poller(purgeExpiredRateLimits, "rate limit purge failed"));
}
