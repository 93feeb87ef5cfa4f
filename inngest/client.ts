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

/**
 * The event id of a hand-off: Inngest drops repeats of an id for 24 h. The first hand-off is
 * `delivery-<id>-1`; a sweep adds its hour, so a run that died at attempt n is handed over again
 * within the hour rather than a day later (a duplicate run is harmless: claims are fenced).
 */
export function deliveryRequestId(deliveryId: string, firstAttempt: number, sweptAt?: Date): string {
  const base = `delivery-${deliveryId}-${firstAttempt}`;
  return sweptAt ? `${base}-sweep-${Math.floor(sweptAt.getTime() / 3_600_000)}` : base;
}
