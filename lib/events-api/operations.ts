import { needs } from "@/lib/permissions";
import type { EventObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import { EventTypeList } from "./event-types";
import { DeliveryArray, EventList, EventListQuery, Event, EventWithDeliveries } from "./schema";

const tag = "Events";

export const listEventsOperation = defineOperation({
  operationId: "listEvents",
  method: "GET",
  path: "/{account_id}/events",
  unscopedPath: "/events",
  summary: "List events",
  description:
    "The account's audit trail, newest first (`created` descending, ties broken by id). Filters combine with AND. `total` is exact for every filter (kept beside the events, not counted per request). Page with `offset` (up to 10,000) or, at any depth and while events keep arriving, with `starting_after` = the last item's id; `created[gte]` / `created[lt]` narrow the list to a time range.",
  tag,
  access: "secret",
  permission: needs("events", "read"),
  query: EventListQuery,
  response: { status: 200, description: "A page of events.", schema: EventList },
});

export const getEventOperation = defineOperation({
  operationId: "getEvent",
  method: "GET",
  path: "/{account_id}/events/{event_id}",
  unscopedPath: "/events/{event_id}",
  summary: "Retrieve an event",
  tag,
  access: "secret",
  permission: needs("events", "read"),
  response: { status: 200, description: "The event.", schema: Event },
  errors: [404],
});

export const listEventDeliveriesOperation = defineOperation({
  operationId: "listEventDeliveries",
  method: "GET",
  path: "/{account_id}/events/{event_id}/deliveries",
  unscopedPath: "/events/{event_id}/deliveries",
  summary: "List an event's deliveries",
  description: "One delivery per subscribed webhook endpoint, as a bare JSON array (not the list envelope).",
  tag,
  access: "secret",
  permission: needs("events", "read"),
  response: { status: 200, description: "The deliveries.", schema: DeliveryArray },
  errors: [404],
});

export const getEventFullOperation = defineOperation({
  operationId: "getEventFull",
  method: "GET",
  path: "/{account_id}/events/{event_id}/full",
  unscopedPath: "/events/{event_id}/full",
  summary: "Retrieve an event with its deliveries",
  description:
    "The event, its deliveries, and what they sent: the exact webhook body and each attempted delivery's latest request headers (signatures masked; never the signing secret).",
  tag,
  access: "secret",
  permission: needs("events", "read"),
  response: { status: 200, description: "The event and its deliveries.", schema: EventWithDeliveries },
  errors: [404],
});

export const listEventTypesOperation = defineOperation({
  operationId: "listEventTypes",
  method: "GET",
  path: "/event-types",
  summary: "List event types",
  description:
    "The event catalogue, for receivers to import: every type with its group, the entity type its `data.object` is, a description, and the JSON Schema of its webhook body (the OpenAPI document's `webhooks` carry the same schemas). The same for every account and public, as the OpenAPI document is: no token needed.",
  tag,
  access: "public",
  response: { status: 200, description: "Every event type.", schema: EventTypeList },
});

/** The events export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const EVENT_EXPORT: ExportColumns<EventObject> = {
  columns: fieldColumns<EventObject>([
    "id", "type", "created", "aggregate_type", "aggregate_id", "sequence", "version", "actor_type", "actor_id", "request_id",
    "correlation_id", "data", "previous_data", "metadata",
  ]),
};

export const exportEventsOperation = defineExportOperation(listEventsOperation, { operationId: "exportEvents", plural: "events", columns: EVENT_EXPORT });

export const eventOperations = [
  listEventTypesOperation,
  listEventsOperation,
  exportEventsOperation,
  getEventOperation,
  listEventDeliveriesOperation,
  getEventFullOperation,
];
