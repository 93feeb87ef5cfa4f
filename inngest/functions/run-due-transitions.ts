import { inngest, transitionsDue, transitionsDueEvent } from "@/inngest/client";
import { nextDueRealInstant, runAccountDueTransitions } from "@/lib/clock/service";
import { wire } from "@/lib/server/wiring";

// The clock runs the transitions handed to it at start-up (lib/server/wiring.ts).
wire();

/**
 * Sleeps until `at` (`step.sleepUntil`; at once when it has passed), then runs everything due in
 * the account on its clock, and hands over the account's next due instant to a new run of itself.
 * Announced by lib/jobs (a subscription created, an invoice finalized with a due date, a test
 * clock advanced, …) and by the `clock-tick` cron. The rows stay the truth: a wake-up that finds
 * nothing due does nothing, and every transition locks its row and re-checks it is due, so
 * duplicate or late runs are harmless.
 */
export const runDueTransitions = inngest.createFunction(
  {
    id: "run-due-transitions",
    triggers: [transitionsDue],
    // The step fails only on infrastructure errors (database down, a bug): ride out a restart.
    retries: 5,
    // One account's transitions run one at a time (sleeping runs do not count).
    concurrency: { key: "event.data.accountId", limit: 1 },
    checkpointing: false,
  },
  async ({ event, step }) => {
    const { accountId, at } = event.data;
    await step.sleepUntil("until-due", at);
    const run = await step.run("run-due", async () => {
      const transitionsRun = await runAccountDueTransitions(accountId);
      const next = await nextDueRealInstant(accountId);
      return { transitionsRun, next: next?.toISOString() ?? null };
    });
    if (run.next) await step.sendEvent("schedule-next", transitionsDueEvent(accountId, new Date(run.next)));
    return run;
  },
);
