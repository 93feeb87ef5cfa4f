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
  summaries: (accountId: string, meterId: string, customerId: string) => ["meters", accountId, "summaries", meterId, customerId] as const,
  events: (accountId: string, meterId: string, customerId: string) => ["meters", accountId, "events", meterId, customerId] as const,
  usage: (accountId: string, customerId: string, meterId: string) => ["meters", accountId, "usage", customerId, meterId] as const,
};

/** A usage value: null (max/last without events) as a dash. */
export function formatUsage(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en");
}
