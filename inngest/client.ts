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

/** Something in the account falls due at `at` (ISO, real time): run its due time-driven transitions then. */
export const transitionsDue = eventType("billing/clock.transitions.due", {
  schema: z.object({ accountId: z.string(), at: z.iso.datetime() }),
});

/**
 * The wake-up event for `at` (real time), rounded up to the whole second. Its id names the account
 * and that second: Inngest drops repeats of an id for 24 h, so announcing one instant twice (a
 * creation, then a run that finds it next) wakes the account once, and every event of one id
 * sleeps until the same instant.
 */
export function transitionsDueEvent(accountId: string, at: Date) {
  const second = Math.ceil(at.getTime() / 1000);
  return transitionsDue.create({ accountId, at: new Date(second * 1000).toISOString() }, { id: `clock-${accountId}-${second}` });
}
