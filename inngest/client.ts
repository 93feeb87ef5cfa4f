import { eventType, Inngest } from "inngest";
import { z } from "zod";

/**
 * The Inngest client. Mode and keys come from the standard variables: INNGEST_DEV=1 (with
 * `npx inngest-cli@latest dev`), or INNGEST_EVENT_KEY / INNGEST_SIGNING_KEY for Inngest Cloud or a
 * self-hosted `inngest start` (INNGEST_BASE_URL).
 */
export const inngest = new Inngest({ id: "billing-service" });

/**
 * A delivery wants its schedule driven, starting at attempt `firstAttempt`. `endpointId` keys the
 * per-endpoint concurrency limit; `throttleKey` the per-endpoint rate (see {@link throttleKeyOf}).
 */
export const deliveryRequested = eventType("billing/webhook.delivery.requested", {
  schema: z.object({
    deliveryId: z.string(),
    firstAttempt: z.number().int().min(1),
    endpointId: z.string(),
    throttleKey: z.string(),
  }),
});

let throttleTurn = 0;

/**
 * Inngest's `throttle` takes a fixed limit, while each endpoint has its own
 * `max_deliveries_per_second`. So the function throttles each key to one run start per second,
 * and an endpoint of rate r spreads its deliveries over r keys (`<endpoint>:0` … `<endpoint>:r-1`,
 * in turn): at most r starts per second in all, never more, whoever sends the events. Without a
 * rate the key is the delivery's own: never throttled.
 */
export function throttleKeyOf(deliveryId: string, endpointId: string, maxPerSecond: number | null): string {
  if (maxPerSecond === null) return deliveryId;
  throttleTurn = (throttleTurn + 1) % 1_000_000;
  return `${endpointId}:${throttleTurn % maxPerSecond}`;
}

/** What a hand-off needs to know about a delivery. */
export type DeliveryHandOff = { deliveryId: string; firstAttempt: number; endpointId: string; maxPerSecond: number | null };

/** The event that hands a delivery to `deliver-webhook` (`sweptAt`: see {@link deliveryRequestId}). */
export function deliveryRequestedEvent(handOff: DeliveryHandOff, sweptAt?: Date) {
  const { deliveryId, firstAttempt, endpointId, maxPerSecond } = handOff;
  return deliveryRequested.create(
    { deliveryId, firstAttempt, endpointId, throttleKey: throttleKeyOf(deliveryId, endpointId, maxPerSecond) },
    { id: deliveryRequestId(deliveryId, firstAttempt, sweptAt) },
  );
}

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

/** Emails were queued: `send-emails` sends what is due (its cron is the safety net under a lost event). */
export const emailsQueued = eventType("billing/emails.queued", { schema: z.object({}) });
