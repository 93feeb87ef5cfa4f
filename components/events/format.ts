import { AGGREGATE_TYPES, isEventType } from "@/lib/events/catalogue";
import { EVENT_FILTER_KEYS, type DeliverySummary, type EventFilterKey, type SummaryStatus } from "./types";
import type { Delivery } from "@/components/api-types";

export function isPermanentlyFailed(delivery: Delivery): boolean {
  return delivery.status === "failed" && delivery.next_retry_at === null;
}

/** Still moving: worth polling until it settles (a `failed` delivery with a retry scheduled too). */
export function isInFlight(delivery: Delivery): boolean {
  return delivery.status === "pending" || delivery.status === "delivering" || (delivery.status === "failed" && delivery.next_retry_at !== null);
}

/** "1 delivered", "2 pending" … in a stable order; empty when the event had no deliveries. */
export function summaryParts(summary: DeliverySummary | undefined): { status: SummaryStatus; label: string }[] {
  if (!summary || summary.total === 0) return [];
  const order: (keyof Omit<DeliverySummary, "total">)[] = ["delivered", "pending", "retrying", "failed"];
  return order.filter((key) => summary[key] > 0).map((key) => ({ status: key, label: `${summary[key]} ${key}` }));
}

/** The events timeline URL with some filters set (e.g. one entity's whole timeline). */
export function eventsHref(accountId: string, filters: Partial<Record<EventFilterKey, string>> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
  const qs = query.toString();
  return `/accounts/${accountId}/events${qs ? `?${qs}` : ""}`;
}

export function eventHref(accountId: string, eventId: string): string {
  return `/accounts/${accountId}/events/${encodeURIComponent(eventId)}`;
}

/** Pretty JSON for display; `undefined` (a field absent on one side) reads as "(absent)". */
export function formatJson(value: unknown): string {
  return value === undefined ? "(absent)" : JSON.stringify(value, null, 2);
}

/** react-query keys shared by the pages that read or invalidate the same data. */
export const queryKeys = {
  events: (accountId: string) => ["events", accountId] as const,
  eventFull: (accountId: string, eventId: string) => ["event-full", accountId, eventId] as const,
  attempts: (accountId: string, deliveryId: string) => ["delivery-attempts", accountId, deliveryId] as const,
  deliveryHealth: (accountId: string) => ["delivery-health", accountId] as const,
  billingStatus: (accountId: string) => ["billing-status", accountId] as const,
};

/** Rows per page of the dashboard's event timeline. */
export const EVENTS_PAGE_SIZE = 25;

/** The API query behind one page of the timeline (the server renders the first page with it too). */
export function eventListQuery(filters: Partial<Record<EventFilterKey, string>>, offset: number): URLSearchParams {
  return new URLSearchParams({ ...filters, limit: String(EVENTS_PAGE_SIZE), offset: String(offset), expand: "delivery_summary" });
}

/** The timeline's filters and offset, as the URL holds them (read the same on the server and in the browser). */
export function eventListState(get: (key: string) => string | null | undefined): {
  filters: Partial<Record<EventFilterKey, string>>;
  offset: number;
} {
  const filters: Partial<Record<EventFilterKey, string>> = {};
  for (const key of EVENT_FILTER_KEYS) {
    const value = get(key)?.trim();
    if (value) filters[key] = value;
  }
  const offset = Number(get("offset"));
  return { filters, offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0 };
}

/** The longest id filter the API takes (EventListQuery's `max(255)`). */
const MAX_FILTER_LENGTH = 255;

/**
 * What is wrong with the URL's filters, in a few words each, found before asking the API: the
 * API's own answer to an unknown type lists the whole catalogue, which is no help on this page.
 */
export function filterProblems(filters: Partial<Record<EventFilterKey, string>>): string[] {
  const problems: string[] = [];
  const shown = (value: string) => `“${value.length > 60 ? `${value.slice(0, 60)}…` : value}”`;
  if (filters.event_type && !isEventType(filters.event_type)) problems.push(`Unknown event type ${shown(filters.event_type)}.`);
  if (filters.aggregate_type && !(AGGREGATE_TYPES as readonly string[]).includes(filters.aggregate_type)) {
    problems.push(`Unknown aggregate type ${shown(filters.aggregate_type)}.`);
  }
  for (const key of ["aggregate_id", "event_id"] as const) {
    const value = filters[key];
    if (value && value.length > MAX_FILTER_LENGTH) problems.push(`The ${key.replace("_", " ")} is too long to be an id.`);
  }
  return problems;
}
