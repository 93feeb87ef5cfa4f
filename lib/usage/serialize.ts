import type { z } from "zod";
import type { usageEvents } from "@/db/schema";
import type { UsageEventRecord } from "./schema";

type UsageEventRow = typeof usageEvents.$inferSelect;

/** A stored usage event as the API shows it; the payload is stored as the JSON text it was sent as. */
export function serializeUsageEvent(row: UsageEventRow): z.input<typeof UsageEventRecord> {
  return {
    object: "usage_event",
    identifier: row.identifier,
    meter: row.meterId,
    customer: row.customerId,
    timestamp: Math.floor(row.ts.getTime() / 1000),
    value: row.value,
    payload: JSON.parse(row.payload) as Record<string, string | number | boolean | null>,
    received: row.received.toISOString(),
    cancelled: row.cancelledAt?.toISOString() ?? null,
  };
}
