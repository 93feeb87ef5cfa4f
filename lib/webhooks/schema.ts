import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { EVENT_TYPES, isEventType } from "@/lib/events/catalogue";
import { DateTime } from "@/lib/schemas";

/** Subscribing to `*` receives every event type, including types added later. */
export const WILDCARD = "*";

const HttpsUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "Must be an absolute HTTPS URL." });
      return;
    }
    if (url.protocol !== "https:") ctx.addIssue({ code: "custom", message: "Must be an HTTPS URL; HTTP URLs are rejected." });
    if (url.username || url.password) ctx.addIssue({ code: "custom", message: "Must not contain credentials." });
  })
  .meta({ description: "Where events are POSTed. HTTPS only.", example: "https://example.com/webhooks/billing" });

const EventSelection = z
  .array(z.string())
  .min(1, "Subscribe to at least one event type (or \"*\" for all).")
  .superRefine((types, ctx) => {
    const unknown = types.filter((type) => type !== WILDCARD && !isEventType(type));
    if (unknown.length > 0) ctx.addIssue({ code: "custom", message: `Unknown event types: ${unknown.join(", ")}.` });
  })
  .transform((types) => (types.includes(WILDCARD) ? [WILDCARD] : [...new Set(types)].sort()))
  .meta({
    description: `Event types to receive, or ["*"] for every type.`,
    example: ["customer.created", "invoice.paid"],
    items: { enum: [WILDCARD, ...EVENT_TYPES] },
  });

const Description = z.string().max(500).nullable();

const MaxDeliveriesPerSecond = z
  .number()
  .int()
  .min(1)
  .max(10_000)
  .nullable()
  .meta({
    description:
      "At most this many delivery attempts start per second for this endpoint, across all instances (null: no limit). " +
      "Rates above 10/s may start a tenth of a second's worth at once.",
    example: 50,
  });

export const WebhookEndpointCreateInput = z
  .strictObject({
    url: HttpsUrl,
    events: EventSelection,
    description: Description.optional(),
    enabled: z.boolean().optional(),
    max_deliveries_per_second: MaxDeliveriesPerSecond.optional(),
  })
  .meta({ id: "WebhookEndpointCreateInput" });

export const WebhookEndpointUpdateInput = z
  .strictObject({
    url: HttpsUrl.optional(),
    events: EventSelection.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional(),
    max_deliveries_per_second: MaxDeliveriesPerSecond.optional(),
  })
  .meta({ id: "WebhookEndpointUpdateInput" });

export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ description: "Prefix `whe_`." }),
    object: z.literal("webhook_endpoint"),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    max_deliveries_per_second: MaxDeliveriesPerSecond,
    livemode: z.boolean(),
    previous_secret_expires_at: DateTime.nullable().meta({
      description:
        "After a rotation with overlap: until when the previous secret still signs deliveries (a second `v1,` signature in `webhook-signature`); null when only the current secret signs.",
    }),
    failing_since: DateTime.nullable().meta({
      description: "Since when every delivery attempt to the endpoint has failed (account clock); null once one succeeds.",
    }),
    disabled_at: DateTime.nullable().meta({
      description: "When the service disabled the endpoint after its attempts failed for a sustained period (default 5 days).",
    }),
    disabled_reason: z.string().nullable().meta({
      description: "Why the service disabled it. Enabling the endpoint clears it; replay the missed window with `/replay`.",
    }),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "WebhookEndpoint" });

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().meta({
    description:
      "The signing secret (`whsec_` + base64 of 32 random bytes, the Standard Webhooks format), shown only on creation and rotation. Standard Webhooks libraries take it as is; the `X-Webhook-Signature` HMAC is keyed with the whole string.",
  }),
}).meta({ id: "WebhookEndpointWithSecret" });

export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

export const RotateSecretInput = z
  .strictObject({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(DEFAULT_ROTATION_OVERLAP_SECONDS)
      .meta({
        description:
          "How long the replaced secret keeps signing beside the new one (default 86400, one day; at most 7 days; 0 stops it at once).",
      }),
  })
  .meta({ id: "RotateSecretInput" });

export const DeletedWebhookEndpoint = z
  .object({ id: z.string(), object: z.literal("webhook_endpoint"), deleted: z.literal(true) })
  .meta({ id: "DeletedWebhookEndpoint" });

export const WebhookEndpointList = listEnvelopeSchema(WebhookEndpoint, "WebhookEndpointList");

export const DeliveryAttempt = z
  .object({
    id: z.string().meta({ description: "Prefix `eda_`." }),
    object: z.literal("delivery_attempt"),
    delivery_id: z.string(),
    attempt_number: z.number().int(),
    trigger: z.enum(["scheduled", "manual"]),
    outcome: z.enum(["delivered", "retry", "failed"]).meta({
      description: "`retry`: failed, another attempt was scheduled; `failed`: failed with no retry left.",
    }),
    url: z.string(),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    response_excerpt: z.string().nullable().meta({ description: "The first 4 KB of the response body." }),
    duration_ms: z.number().int(),
    created: DateTime,
  })
  .meta({ id: "DeliveryAttempt" });

export const DeliveryAttemptArray = z.array(DeliveryAttempt).meta({ id: "DeliveryAttemptArray" });

export const EndpointDeliveriesQuery = PaginationQuery.extend({
  status: z.enum(["pending", "delivering", "delivered", "failed"]).optional(),
});

export const RetryFailedInput = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).meta({
      description: "Retry the endpoint's permanently failed deliveries created at or after this time.",
    }),
  })
  .meta({ id: "RetryFailedInput" });

export const RetryFailedResult = z
  .object({
    retried: z.number().int(),
    delivered: z.number().int(),
    failed: z.number().int(),
    has_more: z.boolean().meta({ description: "More failed deliveries remain (at most 100 are retried per call)." }),
  })
  .meta({ id: "RetryFailedResult" });
