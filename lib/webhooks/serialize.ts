import type { deliveryAttempts, webhookEndpoints } from "@/db/schema";
import type { z } from "zod";
import type { DeliveryAttempt, WebhookEndpoint } from "./schema";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryAttemptRow = typeof deliveryAttempts.$inferSelect;

export function serializeWebhookEndpoint(row: WebhookEndpointRow, livemode: boolean): z.input<typeof WebhookEndpoint> {
  return {
    id: row.id,
    object: "webhook_endpoint",
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    max_deliveries_per_second: row.maxDeliveriesPerSecond,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

export function serializeDeliveryAttempt(row: DeliveryAttemptRow): z.input<typeof DeliveryAttempt> {
  return {
    id: row.id,
    object: "delivery_attempt",
    delivery_id: row.deliveryId,
    attempt_number: row.attemptNumber,
    trigger: row.trigger,
    outcome: row.outcome,
    url: row.url,
    response_status: row.responseStatus,
    error: row.error,
    response_excerpt: row.responseExcerpt,
    duration_ms: row.durationMs,
    created: row.created.toISOString(),
  };
}
