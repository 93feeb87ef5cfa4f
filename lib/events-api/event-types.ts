import { z } from "zod";
import { aggregateTypeOf, EVENT_DESCRIPTIONS, EVENT_TYPES } from "@/lib/events/catalogue";
import { WEBHOOK_EVENT_SCHEMAS } from "./payloads";
import { AggregateType, EventType } from "./schema";
import { eventGroupOf } from "./webhooks-document";

export const EventTypeInfo = z
  .object({
    object: z.literal("event_type"),
    type: EventType,
    group: z.string().meta({ description: "The catalogue group, e.g. `Invoice`.", example: "Invoice" }),
    aggregate_type: AggregateType.meta({ description: "The entity type `data.object` is." }),
    description: z.string(),
    schema: z.record(z.string(), z.unknown()).meta({
      description:
        "JSON Schema (draft 2020-12, self-contained: what it refers to is in `$defs`) of the webhook body of this type, the same as the OpenAPI document's webhook of the type.",
    }),
  })
  .meta({ id: "EventTypeInfo" });

export const EventTypeList = z
  .object({
    object: z.literal("list"),
    items: z.array(EventTypeInfo).meta({ description: "Every type of the catalogue, in its order." }),
  })
  .meta({ id: "EventTypeList" });

let catalogue: z.input<typeof EventTypeList> | undefined;

/** The event catalogue a receiver can import: made once, from the catalogue and the types' schemas. */
export function eventTypeCatalogue(): z.input<typeof EventTypeList> {
  catalogue ??= {
    object: "list",
    items: EVENT_TYPES.map((type) => ({
      object: "event_type" as const,
      type,
      group: eventGroupOf(type),
      aggregate_type: aggregateTypeOf(type),
      description: EVENT_DESCRIPTIONS[type],
      schema: z.toJSONSchema(WEBHOOK_EVENT_SCHEMAS[type], { target: "draft-2020-12", io: "output" }) as Record<string, unknown>,
    })),
  };
  return catalogue;
}
