import type { deliveryAttempts, webhookEndpoints } from "@/db/schema";
import type { z } from "zod";
import type { DeliveryAttempt, WebhookEndpoint } from "./schema";
import { realNow } from "@/lib/time";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryAttemptRow = typeof deliveryAttempts.$inferSelect;

/** When the previous secret stops signing, while it still does. */
export function previousSecretExpiry(row: WebhookEndpointRow, now: Date): Date | null {
  const expiresAt = row.previousSecretExpiresAt;
  return row.previousSecretCiphertext && expiresAt && expiresAt > now ? expiresAt : null;
}

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
    previous_secret_expires_at: previousSecretExpiry(row, realNow())?.toISOString() ?? null,
    failing_since: row.failingSince?.toISOString() ?? null,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    disabled_reason: row.disabledReason,
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
