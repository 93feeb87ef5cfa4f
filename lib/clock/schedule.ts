import type { ServiceContext } from "@/lib/context";
import { jobs } from "@/lib/jobs";
import { log, safeError } from "@/lib/log";

/**
 * Tells the job provider that something in the account falls due at `at` (the account's time),
 * so a driver that sleeps until then (Inngest's `step.sleepUntil`) wakes on time. Best effort: the
 * due state lives in the entity rows, and the drivers' periodic sweep (the embedded ticker, the
 * Inngest cron) runs whatever a lost hand-off left due. Call it after the change committed, or
 * from inside its transaction: a wake-up that finds nothing due does nothing.
 */
export async function transitionScheduled(ctx: ServiceContext, at: Date): Promise<void> {
  // The account's clock runs this far ahead of the real one (0 unless a sandbox test clock moved it).
  const offsetMs = ctx.now().getTime() - Date.now();
  await transitionScheduledAt(ctx.accountId, new Date(at.getTime() - offsetMs));
}

/** As transitionScheduled, with the real instant already known. */
export async function transitionScheduledAt(accountId: string, realAt: Date): Promise<void> {
  try {
    await jobs().transitionScheduled(accountId, realAt);
  } catch (error) {
    log().error(
      { account_id: accountId, due_at: realAt.toISOString(), err: safeError(error) },
      "could not hand a due transition to the job provider; the sweep will run it",
    );
  }
}
