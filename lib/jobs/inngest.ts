import { deliveryRequested, deliveryRequestId, inngest, transitionsDueEvent } from "@/inngest/client";
import type { JobProvider } from "./index";

export const inngestJobs: JobProvider = {
  name: "inngest",
  async deliveriesCreated(deliveryIds) {
    try {
      await inngest.send(
        deliveryIds.map((deliveryId) =>
          // The event id makes a repeated hand-off of the same schedule a no-op in Inngest.
          deliveryRequested.create({ deliveryId, firstAttempt: 1 }, { id: deliveryRequestId(deliveryId, 1) }),
        ),
      );
    } catch (error) {
      // The rows are committed and due; the sweep function hands them over again.
      console.error("Could not hand deliveries to Inngest; the sweep will retry.", error);
    }
  },
  async transitionScheduled(accountId, at) {
    // `run-due-transitions` sleeps until `at`; the id makes a repeat for the same instant a no-op.
    // A failure is the caller's to log (lib/clock/schedule.ts): the cron runs it within a minute.
    await inngest.send(transitionsDueEvent(accountId, at));
  },
};
