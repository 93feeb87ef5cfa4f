import { inngest, transitionsDueEvent } from "@/inngest/client";
import { findDueAccounts } from "@/lib/clock/service";
import { compactListCountsNow } from "@/lib/jobs/list-count-compactor";
import { realNow } from "@/lib/time";
import { purgeExpiredRateLimits } from "@/db/rate-limits";
import { wire } from "@/lib/server/wiring";

// The clock runs the transitions handed to it at start-up (lib/server/wiring.ts).
wire();

/**
 * Every minute, wakes `run-due-transitions` for each account with a time-driven transition due on
 * its own clock: the safety net under the wake-ups announced as things are scheduled (a lost
 * hand-off, a run that died, a test clock moved by another process), and what keeps time running
 * with no announcement at all. One event per account, so accounts run in parallel and one
 * account's failure stays its own; the id names the account and the tick, so a replayed tick
 * sends nothing new.
 */
export const clockTick = inngest.createFunction(
  {
    id: "clock-tick",
    triggers: [{ cron: "* * * * *" }],
    // The next tick is the retry.
    retries: 0,
    concurrency: { limit: 1 },
    // Two steps a minute gain nothing from checkpointing (see deliver-webhook).
    checkpointing: false,
  },
  async ({ event, step }) => {
    // The tick's own time, identical on every replay of this run.
    const tickAt = new Date(Math.floor((event.ts ?? realNow().getTime()) / 1000) * 1000);
    const accountIds = await step.run("find-due-accounts", () => findDueAccounts(tickAt));
    if (accountIds.length > 0) {
      await step.sendEvent(
        "wake-accounts",
        accountIds.map((accountId) => transitionsDueEvent(accountId, tickAt)),
      );
    }
    // The minute's list-count deltas (db/list-totals.ts): totals stay exact without it, this keeps them cheap.
    const folded = await step.run("compact-list-counts", () => compactListCountsNow());
    // Expired rate-limit rows (lib/api/rate-limit.ts): the table stays as small as the current windows.
    const purged = await step.run("purge-rate-limits", () => purgeExpiredRateLimits());
    return { accounts: accountIds.length, listCountDeltasFolded: folded, rateLimitsPurged: purged };
  },
);
