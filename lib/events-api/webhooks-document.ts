import { createDocument, type ZodOpenApiPathItemObject } from "zod-openapi";
import { aggregateTypeOf, EVENT_CATALOGUE, EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from "@/lib/events/catalogue";
import { eventSchemaStem, WebhookEvent } from "./payloads";

const groupOf = new Map<string, string>(EVENT_CATALOGUE.flatMap((group) => group.types.map((type) => [type, group.group] as const)));

/** The catalogue group of a type, e.g. `Invoice`. */
export function eventGroupOf(type: EventType): string {
  return groupOf.get(type)!;
}

const RECEIVER_RESPONSES = {
  "2XX": { description: "Received: the delivery is `delivered`. Answer at once and process asynchronously." },
  "401": { description: "The signature did not verify: a permanent failure, not retried." },
  "4XX": { description: "Any other 4xx is a permanent failure too; the delivery is not retried." },
  "5XX": { description: "A 5xx, a timeout or an unreachable endpoint is retried on the schedule of the webhook docs." },
};

const webhookEventComponentId = (type: EventType) => `${eventSchemaStem(type)}WebhookEvent`;

/**
 * The components the webhooks refer to (one per type, their union `WebhookEvent`, and what they
 * refer to), rendered as responses are: zod-openapi renders request bodies, webhooks' included, in
 * zod's input mode (objects open to unknown keys), and a component rendered in both modes is
 * split in two (`Customer` and `CustomerOutput`). What the service sends is output, so they are
 * rendered as a response of a scratch document; the shared ones (`Customer`, …) render the same
 * there as in the real document, which the caller checks.
 */
export function webhookEventComponents(): Record<string, unknown> {
  const scratch = createDocument({
    openapi: "3.1.0",
    info: { title: "webhook events", version: "1" },
    paths: {
      "/webhook-events": {
        get: { responses: { "200": { description: "Any webhook body.", content: { "application/json": { schema: WebhookEvent } } } } },
      },
    },
  });
  return scratch.components?.schemas ?? {};
}

/**
 * The OpenAPI document's `webhooks`: one per catalogue type, named by the type, whose request body
 * is exactly what a delivery of it POSTs (lib/webhooks/payload.ts).
 */
export function eventWebhooks(): Record<string, ZodOpenApiPathItemObject> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${eventSchemaStem(type).charAt(0).toLowerCase()}${eventSchemaStem(type).slice(1)}Webhook`,
          summary: type,
          description: `${EVENT_DESCRIPTIONS[type]} \`data.object\` is the ${aggregateTypeOf(type)}. Signed with the endpoint's secret: \`X-Webhook-Signature\` and the Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\` (docs/webhooks.md).`,
          tags: [`${eventGroupOf(type)} events`],
          // The receiver authenticates the sender by the signature (components.securitySchemes).
          security: [{ webhookSignature: [] }],
          requestBody: {
            required: true,
            // A reference, not the zod schema: request bodies render in zod's input mode, but this is
            // what the service sends (output mode: exact objects). webhookEventComponents registers it.
            content: { "application/json": { schema: { $ref: `#/components/schemas/${webhookEventComponentId(type)}` } } },
          },
          responses: RECEIVER_RESPONSES,
        },
      } satisfies ZodOpenApiPathItemObject,
    ]),
  );
}
