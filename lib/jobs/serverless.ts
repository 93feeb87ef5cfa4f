import type { JobProvider } from "./index";
import { jobWork } from "./work";
import { log, safeError } from "@/lib/log";

/**
 * Runs `work` after the response is sent, within the same invocation (Next's `after`, which
 * Vercel keeps alive through `waitUntil` up to the route's maxDuration). Outside a request (a
 * script) there is no response to wait for: the work runs now.
 */
export async function afterResponse(label: string, work: () => Promise<unknown>): Promise<void> {
  const guarded = () => work().then(() => undefined, (error: unknown) => log().error({ err: safeError(error) }, label));
  const { after } = await import("next/server");
  try {
    after(guarded);
  } catch {
    await guarded();
  }
}

/** Processor events are applied right after the response that stored them, by every provider. */
export async function applyProcessorEventsAfterResponse(accountId: string): Promise<void> {
  await afterResponse(`Processor events of ${accountId} were not applied; the next event's pass retries them.`, async () => {
    await jobWork()?.applyProcessorEvents(accountId);
  });
}

/**
 * Vercel without Inngest: no process outlives its request, so nothing may wait on a timer. A new
 * delivery's first attempt runs right after the response that created it; everything later
 * (retries, expired leases, time-driven transitions) is picked up by the Vercel Cron routes
 * (app/api/cron, vercel.json), which read the due rows: a lost `after` only delays work.
 */
export const serverlessJobs: JobProvider = {
  name: "serverless",
  async deliveriesCreated(deliveryIds) {
    await afterResponse("Webhook first attempts failed; the cron pass retries them.", async () => {
      await jobWork()?.attemptDeliveries(deliveryIds);
    });
  },
  async processorEventsReceived(accountId) {
    await applyProcessorEventsAfterResponse(accountId);
  },
  async transitionScheduled(accountId, at) {
    // Due already (a trial shorter than its notice): run it now rather than at the next cron.
    if (at.getTime() > Date.now()) return;
    await afterResponse(`Time-driven transitions of ${accountId} failed; the cron runs them.`, async () => {
      await jobWork()?.runAccountDueTransitions(accountId);
    });
  },
  async emailsQueued() {
    await afterResponse("Sending emails failed; the deliveries cron sends them.", async () => {
      await jobWork()?.sendDueEmails(1);
    });
  },
};
