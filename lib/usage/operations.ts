import type { z } from "zod";
import { needs } from "@/lib/permissions";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import {
  CancelledUsageEvent,
  CustomerUsage,
  CustomerUsageQuery,
  MeterSummaries,
  MeterSummariesQuery,
  MeterUsageEventsQuery,
  UsageEventBatchInput,
  UsageEventBatchResult,
  UsageEventInput,
  UsageEventRecordList,
  type UsageEventRecord,
  UsageEventResult,
} from "./schema";

const tag = "Usage";

export const createUsageEventOperation = defineOperation({
  operationId: "createUsageEvent",
  method: "POST",
  path: "/{account_id}/usage-events",
  unscopedPath: "/usage-events",
  summary: "Ingest a usage event",
  description:
    "Counts one event for the meter of its `event_name`. 200 `accepted` (committed: durable) or `duplicate` (this " +
    "identifier was accepted before with the same body); 409 `usage_event_conflict` when it was accepted with another " +
    "body; 422 with `error_code` naming the reason when the event cannot count (unknown event_name or customer, " +
    "value, timestamp outside the window). Secret tokens only.",
  tag,
  access: "secret",
  permission: needs("usage", "write"),
  body: UsageEventInput,
  response: { status: 200, description: "Accepted or duplicate.", schema: UsageEventResult },
  errors: [409, 415, 422],
});

export const createUsageEventBatchOperation = defineOperation({
  operationId: "createUsageEventBatch",
  method: "POST",
  path: "/{account_id}/usage-events/batch",
  unscopedPath: "/usage-events/batch",
  summary: "Ingest usage events in a batch",
  description:
    "1 to 1,000 events, answered 200 with one result per event in order: `accepted`, `duplicate` or `invalid` with " +
    "`error` (an identifier accepted before with another body is `invalid` with `usage_event_conflict`). One invalid " +
    "event never rejects the others. The accepted ones are committed before the answer.",
  tag,
  access: "secret",
  permission: needs("usage", "write"),
  body: UsageEventBatchInput,
  response: { status: 200, description: "One result per event, in order.", schema: UsageEventBatchResult },
  errors: [415],
});

export const cancelUsageEventOperation = defineOperation({
  operationId: "cancelUsageEvent",
  method: "POST",
  path: "/{account_id}/usage-events/{identifier}/cancel",
  unscopedPath: "/usage-events/{identifier}/cancel",
  summary: "Cancel a usage event",
  description:
    "Removes an accepted event from usage while its period's invoice is not finalized; afterwards 409 " +
    "`usage_event_locked`. Cancelling again answers the same.",
  tag,
  access: "secret",
  permission: needs("usage", "write"),
  response: { status: 200, description: "The cancelled event.", schema: CancelledUsageEvent },
  errors: [404, 409],
});

export const getCustomerUsageOperation = defineOperation({
  operationId: "getCustomerUsage",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}/usage",
  unscopedPath: "/customers/{customer_id}/usage",
  summary: "A customer's usage of a meter",
  description:
    "The aggregated usage of the customer's open period: its live subscription's current period, else the UTC calendar month.",
  tag,
  access: "secret",
  permission: needs("usage", "read"),
  query: CustomerUsageQuery,
  response: { status: 200, description: "The usage.", schema: CustomerUsage },
  errors: [404],
});

export const getMeterSummariesOperation = defineOperation({
  operationId: "getMeterSummaries",
  method: "GET",
  path: "/{account_id}/meters/{meter_id}/summaries",
  unscopedPath: "/meters/{meter_id}/summaries",
  summary: "A customer's usage of a meter by hour or day",
  description:
    "One bucket per whole hour or UTC day of [start, end), every bucket listed (empty ones 0, or null for max/last). Without `start` and `end`: the last 30 days (or 24 hours) ending with the current one on the account's clock.",
  tag,
  access: "secret",
  permission: needs("usage", "read"),
  query: MeterSummariesQuery,
  response: { status: 200, description: "The buckets.", schema: MeterSummaries },
  errors: [404, 422],
});

export const listMeterUsageEventsOperation = defineOperation({
  operationId: "listMeterUsageEvents",
  method: "GET",
  path: "/{account_id}/meters/{meter_id}/usage-events",
  unscopedPath: "/meters/{meter_id}/usage-events",
  summary: "A customer's latest usage events of a meter",
  description:
    "The customer's latest `limit` events of the meter, newest first (by `timestamp`, ties by `received`, then `identifier`), cancelled ones included with `cancelled` set; `timestamp[gte]` / `timestamp[lt]` narrow them to a time range. All of them: the export.",
  tag,
  access: "secret",
  permission: needs("usage", "read"),
  query: MeterUsageEventsQuery,
  response: { status: 200, description: "The latest events.", schema: UsageEventRecordList },
  errors: [404],
});

/** The usage events export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const USAGE_EVENT_EXPORT: ExportColumns<z.input<typeof UsageEventRecord>> = {
  columns: fieldColumns<z.input<typeof UsageEventRecord>>(["identifier", "meter", "customer", "timestamp", "value", "payload", "received", "cancelled"]),
};

export const exportMeterUsageEventsOperation = defineExportOperation(listMeterUsageEventsOperation, {
  operationId: "exportMeterUsageEvents",
  plural: "usage events",
  columns: USAGE_EVENT_EXPORT,
});

export const usageOperations = [
  createUsageEventOperation,
  createUsageEventBatchOperation,
  cancelUsageEventOperation,
  getCustomerUsageOperation,
  getMeterSummariesOperation,
  listMeterUsageEventsOperation,
  exportMeterUsageEventsOperation,
];
