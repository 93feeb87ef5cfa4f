// Type-only imports: the lib schemas are zod (server-safe but heavy); only their shapes are needed.
import type { z } from "zod";
import type { BillingStatusObject } from "@/lib/billing-status/schema";
import type { DeliveryObject, EventObject } from "@/lib/events/schema";
import type { DeliveryAttempt as DeliveryAttemptSchema } from "@/lib/webhooks/schema";

export type EventItem = EventObject;
export type Delivery = DeliveryObject;
export type DeliveryAttempt = z.output<typeof DeliveryAttemptSchema>;
export type BillingStatus = BillingStatusObject;

/** How an event's deliveries stand (`expand=delivery_summary`); `retrying` = failed, retry scheduled. */
export type DeliverySummary = { total: number; delivered: number; pending: number; retrying: number; failed: number };

export type EventListItem = EventItem & { delivery_summary?: DeliverySummary };

/** A delivery's latest request as sent (signatures masked). */
export type DeliveredRequest = { delivery_id: string; attempt: number; headers: Record<string, string> };

export type EventFull = { event: EventItem; deliveries: Delivery[]; webhook: { body: string; requests: DeliveredRequest[] } };

export type DeliveryHealth = DeliverySummary & { window_hours: number; success_rate: number | null };

/** The keys of the API's `delivery_summary` (its `retrying` counts failed deliveries with a retry scheduled). */
export type SummaryStatus = keyof Omit<DeliverySummary, "total">;

export const EVENT_FILTER_KEYS = ["event_type", "aggregate_type", "aggregate_id", "event_id"] as const;
export type EventFilterKey = (typeof EVENT_FILTER_KEYS)[number];
