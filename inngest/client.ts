import { eventType, Inngest } from "inngest";
import { z } from "zod";

/**
 * The Inngest client. Mode and keys come from the standard variables: INNGEST_DEV=1 (with
 * `npx inngest-cli@latest dev`), or INNGEST_EVENT_KEY / INNGEST_SIGNING_KEY for Inngest Cloud or a
 * self-hosted `inngest start` (INNGEST_BASE_URL).
 */
export const inngest = new Inngest({ id: "billing-service" });

/** A delivery wants its schedule driven, starting at attempt `firstAttempt`. */
export const deliveryRequested = eventType("billing/webhook.delivery.requested", {
  schema: z.object({ deliveryId: z.string(), firstAttempt: z.number().int().min(1) }),
});
