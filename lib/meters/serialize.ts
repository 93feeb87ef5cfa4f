import type { meters } from "@/db/schema";
import type { MeterObject } from "./schema";

export type MeterRow = typeof meters.$inferSelect;

/** The meter as the API shows it and events record it. */
export function serializeMeter(row: MeterRow, livemode: boolean): MeterObject {
  return {
    id: row.id,
    object: "meter",
    event_name: row.eventName,
    display_name: row.displayName,
    aggregation: row.aggregation,
    value_key: row.valueKey,
    status: row.active ? "active" : "inactive",
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
