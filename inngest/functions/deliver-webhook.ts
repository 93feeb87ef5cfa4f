import { deliveryRequested, inngest } from "@/inngest/client";
import { endpointConcurrencySetting } from "@/lib/config";
import { attemptDelivery } from "@/lib/webhooks/attempt";

/**
 * Attempts executing at once per endpoint. Function options are fixed when the app registers with
 * Inngest, so this reads the environment once, with the embedded driver's default.
 */
export const INNGEST_ENDPOINT_CONCURRENCY = endpointConcurrencySetting();

/**
 * Drives one delivery's schedule: attempt n, and on a retryable failure sleep the spec's delay
 * for attempt n and try n + 1, until it is delivered, failed for good, or skipped.
 *
 * Every HTTP outcome is returned by `attemptDelivery`, never thrown, so the spec's schedule is
 * the only schedule. A step throws only when the infrastructure fails (database unreachable, a
 * bug); Inngest's own retries then apply, and they are safe because the claim in attempt.ts is
 * fenced by the attempt number: a retried step whose request already went out is skipped rather
 * than sent twice. If a run still dies, the sweep (sweep-deliveries.ts) hands the delivery over
 * again once it is overdue.
 */
export const deliverWebhook = inngest.createFunction(
  {
    id: "deliver-webhook",
    triggers: [deliveryRequested],
    // Infrastructure failures only (see above): ride out a database restart or fail-over.
    retries: 5,
    concurrency: [
      // A sweep's re-hand-off may start a second run while the first one is still alive; one
      // executing step per delivery makes them queue instead of racing for the claim.
      { key: "event.data.deliveryId", limit: 1 },
      // Isolation: a slow or hanging endpoint holds at most this many executing attempts, so
      // other endpoints' runs never queue behind it (sleeping runs hold none).
      { key: "event.data.endpointId", limit: INNGEST_ENDPOINT_CONCURRENCY },
    ],
    // The endpoint's max_deliveries_per_second: one run start per second per key, and an
    // endpoint of rate r spreads its events over r keys (throttleKeyOf in inngest/client.ts).
    throttle: { key: "event.data.throttleKey", limit: 1, period: "1s", burst: 1 },
    // One step per attempt, then a sleep of a minute or more: checkpointing would save one round
    // trip per attempt at the price of calls from inside the request to the Inngest API. Without
    // it Inngest calls this app once per step and nothing else is needed (Dev Server, self-hosted).
    checkpointing: false,
  },
  async ({ event, step }) => {
    const { deliveryId } = event.data;
    for (let n = event.data.firstAttempt; ; n++) {
      const outcome = await step.run(`attempt-${n}`, () => attemptDelivery(deliveryId, { mode: "scheduled", attempt: n }));
      if (outcome.result !== "retry") return outcome;
      await step.sleep(`retry-${n}`, outcome.delay.text);
    }
  },
);
