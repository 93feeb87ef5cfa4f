import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";

export const METER_AGGREGATIONS = ["sum", "count", "max", "last", "unique_count"] as const;

const Aggregation = z.enum(METER_AGGREGATIONS).meta({
  description:
    "How a period's events add up: `sum` of the values, `count` of events, `max` value, `last` value (by timestamp), " +
    "`unique_count` of distinct values of `value_key`.",
});

const EventName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.:-]+$/, "Letters, digits, '_', '.', ':' and '-' only.")
  .meta({ description: "The usage events this meter counts (their `event_name`).", example: "api_request" });

const ValueKey = z
  .string()
  .min(1)
  .max(100)
  .meta({ description: "The payload key holding the value (for `unique_count`, the counted key). Default `value`.", example: "value" });

const DisplayName = z.string().min(1).max(256).meta({ example: "API requests" });

export const MeterCreateInput = z
  .strictObject({
    event_name: EventName,
    display_name: DisplayName,
    aggregation: Aggregation,
    value_key: ValueKey.optional(),
  })
  .meta({ id: "MeterCreateInput" });

const immutable = (field: string) =>
  z
    .never({ error: `${field} cannot change after creation; create a new meter instead.` })
    .optional()
    .meta({ description: "Immutable: any value is a 422." });

export const MeterUpdateInput = z
  .strictObject({
    display_name: DisplayName.optional(),
    event_name: immutable("event_name"),
    aggregation: immutable("aggregation"),
    value_key: immutable("value_key"),
  })
  .meta({ id: "MeterUpdateInput" });

export const Meter = z
  .object({
    id: z.string().meta({ example: "mtr_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("meter"),
    event_name: z.string(),
    display_name: z.string(),
    aggregation: Aggregation,
    value_key: z.string(),
    status: z.enum(["active", "inactive"]).meta({ description: "An inactive meter accepts no events and frees its `event_name`." }),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Meter" });

export const MeterList = listEnvelopeSchema(Meter, "MeterList");
export const MeterListQuery = PaginationQuery;

export type MeterObject = z.input<typeof Meter>;
