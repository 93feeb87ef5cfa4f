/**
 * Events written by hand for index, paging and list tests (db/synthetic-events.ts,
 * db/synthetic-objects.ts) carry `metadata.synthetic`: filler, not events a service emitted, so
 * the contract checks (event-check.ts, api-contract.ts) leave them out.
 */
export const isSyntheticEvent = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { metadata?: { synthetic?: unknown } }).metadata?.synthetic === true;

/** The same mark as a jsonb containment (`metadata @> …`), for a check that leaves such rows in the database. */
export const SYNTHETIC_METADATA = JSON.stringify({ synthetic: true });
