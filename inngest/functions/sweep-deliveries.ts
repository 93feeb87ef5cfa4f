import { deliveryRequestedEvent, inngest } from "@/inngest/client";
import { findOverdueDeliveries, type OverdueCursor, type OverduePage } from "@/lib/webhooks/overdue";
import { realNow } from "@/lib/time";

/** Pages per sweep: bounds one run; whatever is left waits for the next tick. */
const MAX_PAGES = 10;

/**
 * Every five minutes, hands overdue deliveries (lost hand-off after commit, or a run that died)
 * to `deliver-webhook` again, resuming at the attempt after the last one made. The event id names
 * the delivery, that attempt and the hour (deliveryRequestId); the events carry the endpoint and
 * its throttle key, so swept deliveries keep their endpoint's concurrency limit and rate, so sweeps within an hour dedupe in
 * Inngest while a run that died is handed over again within the hour.
 */
export const sweepDeliveries = inngest.createFunction(
  {
    id: "sweep-deliveries",
    triggers: [{ cron: "*/5 * * * *" }],
    // The next tick is the retry; a failed sweep should show up as failed, not linger.
    retries: 0,
    // Overlapping sweeps would only send the same (deduplicated) events twice.
    concurrency: { limit: 1 },
    // As in deliver-webhook: a few steps every five minutes gain nothing from checkpointing.
    checkpointing: false,
  },
  async ({ event, step }) => {
    // The tick's own time, identical on every replay of this run.
    const sweptAt = new Date(event.ts ?? realNow().getTime());
    let after: OverdueCursor | null = null;
    let handedOver = 0;
    for (let page = 0; page < MAX_PAGES; page++) {
      const cursor: OverdueCursor | null = after;
      const found: OverduePage = await step.run(`find-overdue-${page}`, () => findOverdueDeliveries({ after: cursor }));
      if (found.deliveries.length > 0) {
        await step.sendEvent(
          `hand-over-${page}`,
          found.deliveries.map((handOff) => deliveryRequestedEvent(handOff, sweptAt)),
        );
        handedOver += found.deliveries.length;
      }
      if (!found.next) break;
      after = found.next;
    }
    return { handedOver };
  },
);
