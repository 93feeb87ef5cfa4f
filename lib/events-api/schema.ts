import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, expandQuery } from "@/lib/schemas";
import { aggregateTypeOf, AGGREGATE_TYPES, EVENT_TYPES, type EventType as CatalogueType } from "@/lib/events/catalogue";
import { AGGREGATE_SCHEMAS, entityStateSchema, EVENT_EXAMPLES, eventSchemaStem } from "./payloads";

const EntityState = z.record(z.string(), z.unknown());

export const EventType = z.enum(EVENT_TYPES as [string, ...string[]]).meta({ id: "EventType" });
export const AggregateType = z.enum(AGGREGATE_TYPES as [string, ...string[]]).meta({ id: "AggregateType" });

/** The Event object of one type: `data` and `previous_data` are its aggregate's schema (lib/events-api/payloads.ts). */
function eventOfType<T extends CatalogueType>(type: T) {
  return z.object({
    id: z.string().meta({ description: "Event identifier, prefix `evt_`." }),
    type: z.literal(type),
    aggregate_type: z.literal(aggregateTypeOf(type)).meta({ description: "Entity type the event belongs to." }),
    aggregate_id: z.string().meta({ description: "External ID of that entity." }),
    data: entityStateSchema(type).meta({ description: "Full entity state after the change." }),
    previous_data: AGGREGATE_SCHEMAS[aggregateTypeOf(type)].nullable().meta({
      description: "Full entity state before the change. `null` for create events.",
    }),
    metadata: EntityState.meta({ description: "Event-specific metadata." }),
    correlation_id: z.string().nullable().meta({
      description: "The request's `X-Correlation-Id`, else its request id.",
    }),
    request_id: z.string().nullable().meta({
      description:
        "The `req_…` id of the API request that caused the event (its request log: `getRequestLog`); null for background work (renewals, the test clock, deliveries).",
    }),
    version: z.number().int().meta({ description: "Schema version of the event format." }),
    sequence: z.number().int().min(1).meta({
      description:
        "Position on the entity's timeline (per `aggregate_id`): 1 for its first event, then +1 exactly. Order and gap-check one entity's events with it.",
    }),
    created: DateTime,
    actor_type: z.enum(["user", "api_key", "system", "customer"]).nullable(),
    actor_id: z.string().nullable().meta({ description: "API token id, user id, … of the actor." }),
  });
}

type EventOfType = ReturnType<typeof eventOfType>;

const EVENT_MEMBERS = EVENT_TYPES.map((type) => {
  const example = EVENT_EXAMPLES[type]?.event;
  return eventOfType(type).meta({ id: `${eventSchemaStem(type)}Event`, ...(example ? { example } : {}) });
});

/** Any event, discriminated by `type` (which narrows `data` and `previous_data` to the aggregate's schema). */
export const Event = z
  .discriminatedUnion("type", EVENT_MEMBERS as [EventOfType, ...EventOfType[]])
  .meta({ id: "Event" });

export const Delivery = z
  .object({
    id: z.string().meta({ description: "Prefix `ed_`." }),
    event_id: z.string(),
    webhook_endpoint_id: z.string(),
    webhook_endpoint_url: z.string().nullable(),
    status: z.enum(["pending", "delivering", "delivered", "failed"]),
    attempt_count: z.number().int(),
    last_attempt_at: DateTime.nullable(),
    delivered_at: DateTime.nullable(),
    next_retry_at: DateTime.nullable().meta({ description: "Next scheduled retry; null if none is scheduled." }),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    created: DateTime,
  })
  .meta({ id: "Delivery" });

const filter = (description: string) => z.string().min(1).max(255).optional().meta({ description });

export const EventListQuery = PaginationQuery.extend({
  expand: expandQuery("delivery_summary"),
  event_id: filter("Only the event with this id."),
  aggregate_id: filter("All events of one entity (its timeline)."),
  aggregate_type: AggregateType.optional().meta({ description: "Events of one entity type." }),
  event_type: EventType.optional().meta({ description: "Events of one type." }),
});

const DeliverySummaryField = {
  delivery_summary: z
    .object({ total: z.number().int(), delivered: z.number().int(), pending: z.number().int(), retrying: z.number().int(), failed: z.number().int() })
    .optional()
    .meta({ description: "With expand=delivery_summary: delivered, pending, retrying (failed, retry scheduled) and failed (permanently)." }),
};

/** The list item: an event, plus how its deliveries stand with `expand=delivery_summary`. */
const listItemOfType = (type: CatalogueType) => eventOfType(type).extend(DeliverySummaryField);
type ListItemOfType = ReturnType<typeof listItemOfType>;

export const EventListItem = z
  .discriminatedUnion("type", EVENT_TYPES.map(listItemOfType) as [ListItemOfType, ...ListItemOfType[]])
  .meta({ id: "EventListItem" });

export const EventList = listEnvelopeSchema(EventListItem, "EventList");
export const DeliveryArray = z.array(Delivery).meta({ id: "DeliveryArray" });
export const DeliveredRequest = z
  .object({
    delivery_id: z.string(),
    attempt: z.number().int().min(1).meta({ description: "The delivery's latest attempt, whose headers these are." }),
    headers: z.record(z.string(), z.string()).meta({
      description: "Every header the attempt sent, built by the function that sent them; signature values are masked.",
    }),
  })
  .meta({ id: "DeliveredRequest" });

export const EventWithDeliveries = z
  .object({
    event: Event,
    deliveries: z.array(Delivery),
    webhook: z.object({
      body: z.string().meta({
        description: "The exact body every delivery of the event POSTs (UTF-8 JSON: `data.object`, `previous_attributes`, `created` in Unix seconds).",
      }),
      requests: z.array(DeliveredRequest).meta({ description: "Per attempted delivery, its latest attempt's request headers." }),
    }),
  })
  .meta({ id: "EventFull" });

export type EventObject = z.input<typeof Event>;
export type DeliveryObject = z.input<typeof Delivery>;
export type EventFilters = Pick<z.output<typeof EventListQuery>, "event_id" | "aggregate_id" | "aggregate_type" | "event_type">;
