import { DAY_MS } from "@/lib/clock/time";

export function metersHref(accountId: string): string {
  return `/accounts/${accountId}/meters`;
}

export function meterHref(accountId: string, meterId: string): string {
  return `/accounts/${accountId}/meters/${encodeURIComponent(meterId)}`;
}

/** react-query keys shared by the meter pages and the customer page's usage card. */
export const meterQueryKeys = {
  meters: (accountId: string) => ["meters", accountId] as const,
  meter: (accountId: string, meterId: string) => ["meters", accountId, "one", meterId] as const,
  summaries: (accountId: string, meterId: string, customerId: string, start: string) => ["meters", accountId, "summaries", meterId, customerId, start] as const,
  events: (accountId: string, meterId: string, customerId: string) => ["meters", accountId, "events", meterId, customerId] as const,
  usage: (accountId: string, customerId: string, meterId: string) => ["meters", accountId, "usage", customerId, meterId] as const,
};

/** The last 30 UTC days, today included: [start, end) as whole days, what the summaries take. */
export function last30Days(now: number): { start: string; end: string } {
  const end = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  return { start: new Date(end - 30 * DAY_MS).toISOString(), end: new Date(end).toISOString() };
}

/** A usage value: null (max/last without events) as a dash. */
export function formatUsage(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en");
}
