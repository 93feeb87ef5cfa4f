import type { Delivery } from "@/components/api-types";

/** Subscribing to "*" means every type, including ones added later (lib/webhooks/schema.ts). */
export const ALL_EVENTS = "*";

/** A one-line summary of an endpoint's subscription for lists. */
export function eventsSummary(events: readonly string[]): string {
  if (events.includes(ALL_EVENTS)) return "All events";
  if (events.length === 0) return "None";
  if (events.length <= 2) return events.join(", ");
  return `${events.slice(0, 2).join(", ")} and ${events.length - 2} more`;
}

export function isPermanentlyFailed(delivery: Delivery): boolean {
  return delivery.status === "failed" && delivery.next_retry_at === null;
}

/** Still moving: its outcome will change without anyone doing anything. */
export function isInFlight(delivery: Delivery): boolean {
  return delivery.status === "pending" || delivery.status === "delivering" || (delivery.status === "failed" && delivery.next_retry_at !== null);
}

const percent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });

export function formatSuccessRate(rate: number | null): string {
  return rate === null ? "—" : percent.format(rate);
}
