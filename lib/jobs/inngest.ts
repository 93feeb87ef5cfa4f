import { eq, inArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { eventDeliveries, webhookEndpoints } from "@/db/schema";
import { deliveryRequestedEvent, emailsQueued, inngest, transitionsDueEvent } from "@/inngest/client";
import type { JobProvider } from "./index";
import { applyProcessorEventsAfterResponse } from "./serverless";
import { log, safeError } from "@/lib/log";

/** Each delivery's endpoint and its rate: the keys of deliver-webhook's concurrency and throttle. */
async function endpointsOf(deliveryIds: string[]) {
  const db = await getDb();
  return db
    .select({
      deliveryId: eventDeliveries.id,
      endpointId: eventDeliveries.webhookEndpointId,
      maxPerSecond: webhookEndpoints.maxDeliveriesPerSecond,
    })
    .from(eventDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, eventDeliveries.webhookEndpointId))
    .where(inArray(eventDeliveries.id, deliveryIds));
}

export const inngestJobs: JobProvider = {
  name: "inngest",
  async deliveriesCreated(deliveryIds) {
    try {
      const handOffs = await endpointsOf(deliveryIds);
      // The event id makes a repeated hand-off of the same schedule a no-op in Inngest.
      await inngest.send(handOffs.map((handOff) => deliveryRequestedEvent({ ...handOff, firstAttempt: 1 })));
    } catch (error) {
      // The rows are committed and due; the sweep function hands them over again.
      log().error({ deliveries: deliveryIds.length, err: safeError(error) }, "Could not hand deliveries to Inngest; the sweep will retry");
    }
  },
  async processorEventsReceived(accountId) {
    // Applied in the receiving process after the response (no Inngest function for them yet).
    await applyProcessorEventsAfterResponse(accountId);
  },
  async transitionScheduled(accountId, at) {
    // `run-due-transitions` sleeps until `at`; the id makes a repeat for the same instant a no-op.
    // A failure is the caller's to log (lib/clock/schedule.ts): the cron runs it within a minute.
    await inngest.send(transitionsDueEvent(accountId, at));
  },
  async emailsQueued() {
    try {
      await inngest.send(emailsQueued.create({}));
    } catch (error) {
      // The rows are committed and due; `send-emails` runs every minute.
      log().error({ err: safeError(error) }, "Could not wake send-emails; its cron sends the emails");
    }
  },
};
