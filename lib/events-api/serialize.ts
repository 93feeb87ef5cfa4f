import type { eventDeliveries, events } from "@/db/schema";
import type { DeliveryObject, EventObject } from "./schema";

export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof eventDeliveries.$inferSelect & { webhookEndpointUrl: string | null };

const iso = (value: Date | null) => value?.toISOString() ?? null;

/**
 * The stored event as the API's Event. The row's JSON is what emitEvent wrote: the aggregate's
 * serialized state, which the type's schema describes (lib/events-api/payloads.ts). The database
 * cannot say so to the compiler, so the test suites check it instead: every event they emit is
 * validated against the document (tests/helpers/event-check.ts).
 */
export function serializeEvent(row: EventRow): EventObject {
  return {
    id: row.id,
    type: row.type,
    aggregate_type: row.aggregateType,
    aggregate_id: row.aggregateId,
    data: row.data,
    previous_data: row.previousData,
    metadata: row.metadata,
    correlation_id: row.correlationId,
    request_id: row.requestId,
    version: row.version,
    sequence: row.sequence,
    created: row.created.toISOString(),
    actor_type: row.actorType,
    actor_id: row.actorId,
  } as EventObject;
}

export function serializeDelivery(row: DeliveryRow): DeliveryObject {
  return {
    id: row.id,
    event_id: row.eventId,
    webhook_endpoint_id: row.webhookEndpointId,
    webhook_endpoint_url: row.webhookEndpointUrl,
    status: row.status,
    attempt_count: row.attemptCount,
    last_attempt_at: iso(row.lastAttemptAt),
    delivered_at: iso(row.deliveredAt),
    next_retry_at: iso(row.nextRetryAt),
    response_status: row.responseStatus,
    error: row.error,
    created: row.created.toISOString(),
  };
}
