import type { EventListItem } from "@/components/api-types";

/** How an event's deliveries stand (`expand=delivery_summary`); `retrying` = failed, retry scheduled. */
export type DeliverySummary = NonNullable<EventListItem["delivery_summary"]>;

/** The keys of the API's `delivery_summary` (its `retrying` counts failed deliveries with a retry scheduled). */
export type SummaryStatus = keyof Omit<DeliverySummary, "total">;

export const EVENT_FILTER_KEYS = ["event_type", "aggregate_type", "aggregate_id", "event_id"] as const;
export type EventFilterKey = (typeof EVENT_FILTER_KEYS)[number];
