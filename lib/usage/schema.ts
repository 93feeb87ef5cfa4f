import { z } from "zod";
import { PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";

/** Unix seconds, as the usage APIs of Stripe and Lago take them. */
const UnixSeconds = z.int().min(0).max(253_402_300_799);

export const UsageEventInput = z
  .strictObject({
    event_name: z.string().min(1).max(100).meta({ description: "The `event_name` of an active meter.", example: "api_request" }),
    customer: z.string().min(1).max(64).meta({ description: "The customer's id.", example: "cus_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    identifier: z
      .string()
      .min(1)
      .max(255)
      .meta({ description: "Your unique id of the event: the same identifier is counted once per account (≥ 35 days).", example: "req_8f2c1a" }),
    timestamp: UnixSeconds.optional().meta({
      description: "When the usage happened, Unix seconds; default now (the account's clock). At most 5 minutes ahead.",
    }),
    payload: z
      .record(z.string(), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
      .default({})
      .meta({ description: "Flat key → value map; the meter's `value_key` holds the value (an integer ≥ 0).", example: { value: 3 } }),
  })
  .meta({ id: "UsageEventInput" });

export type UsageEventBody = z.output<typeof UsageEventInput>;

export const USAGE_EVENT_STATUSES = ["accepted", "duplicate", "invalid"] as const;

/** Why an event was not counted (`error.code`). */
export const USAGE_EVENT_ERRORS = [
  "invalid_event",
  "unknown_event_name",
  "unknown_customer",
  "invalid_value",
  "timestamp_in_future",
  "timestamp_too_old",
  "period_invoiced",
  "usage_event_conflict",
] as const;
export type UsageEventErrorCode = (typeof USAGE_EVENT_ERRORS)[number];

export const UsageEventResult = z
  .object({
    identifier: z.string().nullable().meta({ description: "The event's identifier (null when the item had none)." }),
    status: z.enum(USAGE_EVENT_STATUSES).meta({
      description: "`accepted`: counted and durable; `duplicate`: this identifier was already accepted with the same body; `invalid`: not counted (see `error`).",
    }),
    error: z
      .object({ code: z.enum(USAGE_EVENT_ERRORS), message: z.string() })
      .optional()
      .meta({ description: "Why the event is `invalid`." }),
  })
  .meta({ id: "UsageEventResult" });

export type UsageEventResultObject = z.input<typeof UsageEventResult>;

export const UsageEventBatchInput = z
  .strictObject({
    events: z
      .array(z.record(z.string(), z.unknown()).meta({ description: "A `UsageEventInput`; an item that does not match it is answered `invalid`." }))
      .min(1)
      .max(1000),
  })
  .meta({ id: "UsageEventBatchInput" });

export const UsageEventBatchResult = z
  .object({ object: z.literal("list"), items: z.array(UsageEventResult) })
  .meta({ id: "UsageEventBatchResult", description: "One result per event, in the order sent." });

export const CancelledUsageEvent = z
  .object({
    object: z.literal("usage_event"),
    identifier: z.string(),
    event_name: z.string(),
    meter: z.string(),
    customer: z.string(),
    timestamp: UnixSeconds,
    cancelled: DateTime.meta({ description: "When it was removed from usage." }),
  })
  .meta({ id: "CancelledUsageEvent" });

export const CustomerUsageQuery = z.strictObject({ meter: z.string().min(1).meta({ description: "The meter's id." }) });

export const CustomerUsage = z
  .object({
    object: z.literal("customer_usage"),
    meter: z.string(),
    customer: z.string(),
    period_start: DateTime,
    period_end: DateTime,
    aggregation: z.enum(["sum", "count", "max", "last", "unique_count"]),
    value: z.int().nullable().meta({ description: "The aggregated usage of the open period; null for `max`/`last` without events." }),
  })
  .meta({ id: "CustomerUsage" });

export const MeterSummariesQuery = z.strictObject({
  customer: z.string().min(1),
  start: DateTime.optional().meta({
    description:
      "First bucket's start (ISO 8601), a whole hour or UTC day as `group_by` says. With `end`, or neither: then the last 30 days (`day`) or 24 hours (`hour`) ending with the current one by the account's clock (a sandbox's test clock included).",
  }),
  end: DateTime.optional().meta({ description: "The end (exclusive, ISO 8601), aligned like `start`; after it, at most 366 days later. With `start`, or neither." }),
  group_by: z.enum(["hour", "day"]).default("day"),
});

export const MeterSummaries = z
  .object({
    object: z.literal("list"),
    meter: z.string(),
    customer: z.string(),
    items: z.array(
      z.object({
        start: DateTime,
        end: DateTime,
        value: z.int().nullable().meta({ description: "The bucket's aggregated usage (null for `max`/`last` without events)." }),
      }),
    ),
  })
  .meta({ id: "MeterSummaries" });

/** A bound of the usage events' `timestamp` range (ISO 8601, as `created[…]` of other lists). */
const timestampBound = (description: string) => DateTime.transform((value) => new Date(value)).optional().meta({ description });

export const MeterUsageEventsQuery = PaginationQuery.pick({ limit: true }).extend({
  customer: z.string().min(1).meta({ description: "The customer's id." }),
  "timestamp[gte]": timestampBound("Only events whose usage happened (`timestamp`) at or after this time (ISO 8601)."),
  "timestamp[lt]": timestampBound("Only events whose usage happened (`timestamp`) before this time (ISO 8601)."),
});

export const UsageEventRecord = z
  .object({
    object: z.literal("usage_event"),
    identifier: z.string(),
    meter: z.string(),
    customer: z.string(),
    timestamp: UnixSeconds.meta({ description: "When the usage happened, Unix seconds." }),
    value: z.int().meta({ description: "The value counted: the meter's `value_key` as an integer (1 for `count`)." }),
    payload: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    received: DateTime.meta({ description: "When it was accepted." }),
    cancelled: DateTime.nullable().meta({ description: "When it was removed from usage, else null." }),
  })
  .meta({ id: "UsageEventRecord" });

export const UsageEventRecordList = z
  .object({ object: z.literal("list"), items: z.array(UsageEventRecord) })
  .meta({ id: "UsageEventRecordList", description: "The latest events, newest first." });
