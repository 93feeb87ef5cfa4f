import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Delivery, Event } from "@/lib/events-api/schema";
import { EventFeed, EventFeedQuery } from "./feed";
import { DeliveryHealth, EndpointDeliveryHealth } from "./health";
import { ReplayInput, ReplayResult } from "./replay";
import { ResendEventInput } from "./resend";
import {
  DeletedWebhookEndpoint,
  DeliveryAttemptArray,
  EndpointDeliveriesQuery,
  RetryFailedInput,
  RetryFailedResult,
  RotateSecretInput,
  WebhookEndpoint,
  WebhookEndpointCreateInput,
  WebhookEndpointList,
  WebhookEndpointUpdateInput,
  WebhookEndpointWithSecret,
} from "./schema";
import { SampleEventInput, TestEventInput } from "./test-events";

const endpointsTag = "Webhook endpoints";
const deliveriesTag = "Deliveries";
const endpointPath = "/{account_id}/webhook-endpoints/{endpoint_id}" as const;
const deliveryPath = "/{account_id}/deliveries/{delivery_id}" as const;
/** The same paths without the account segment: a token acts on its own account. */
const endpointUnscopedPath = "/webhook-endpoints/{endpoint_id}";
const deliveryUnscopedPath = "/deliveries/{delivery_id}";

export const createWebhookEndpointOperation = defineOperation({
  operationId: "createWebhookEndpoint",
  method: "POST",
  path: "/{account_id}/webhook-endpoints",
  unscopedPath: "/webhook-endpoints",
  summary: "Create a webhook endpoint",
  description:
    "The answer carries the signing secret, shown only here and on rotation. The URL must be HTTPS (else 422); unknown event types are a 422 naming them. `[\"*\"]` subscribes to every type.",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: WebhookEndpointCreateInput,
  response: { status: 201, description: "The endpoint and its signing secret.", schema: WebhookEndpointWithSecret },
  errors: [415, 422],
});

export const listWebhookEndpointsOperation = defineOperation({
  operationId: "listWebhookEndpoints",
  method: "GET",
  path: "/{account_id}/webhook-endpoints",
  unscopedPath: "/webhook-endpoints",
  summary: "List webhook endpoints",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  query: PaginationQuery,
  response: { status: 200, description: "A page of endpoints, newest first.", schema: WebhookEndpointList },
});

export const getWebhookEndpointOperation = defineOperation({
  operationId: "getWebhookEndpoint",
  method: "GET",
  path: endpointPath,
  unscopedPath: endpointUnscopedPath,
  summary: "Retrieve a webhook endpoint",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  response: { status: 200, description: "The endpoint.", schema: WebhookEndpoint },
  errors: [404],
});

export const updateWebhookEndpointOperation = defineOperation({
  operationId: "updateWebhookEndpoint",
  method: "POST",
  path: endpointPath,
  unscopedPath: endpointUnscopedPath,
  summary: "Update a webhook endpoint",
  description:
    "Change the URL, the event types, the description, the rate limit (`max_deliveries_per_second`), or enable/disable it. A disabled endpoint receives nothing.",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: WebhookEndpointUpdateInput,
  response: { status: 200, description: "The updated endpoint.", schema: WebhookEndpoint },
  errors: [404, 415, 422],
});

export const deleteWebhookEndpointOperation = defineOperation({
  operationId: "deleteWebhookEndpoint",
  method: "DELETE",
  path: endpointPath,
  unscopedPath: endpointUnscopedPath,
  summary: "Delete a webhook endpoint",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  response: { status: 200, description: "The deleted endpoint's id.", schema: DeletedWebhookEndpoint },
  errors: [404],
});

export const rotateWebhookSecretOperation = defineOperation({
  operationId: "rotateWebhookEndpointSecret",
  method: "POST",
  path: `${endpointPath}/rotate-secret`,
  unscopedPath: `${endpointUnscopedPath}/rotate-secret`,
  summary: "Rotate an endpoint's signing secret",
  description:
    "The new secret signs every attempt from now on. The old one keeps signing beside it for `overlap_seconds` (default one day; `webhook-signature` then carries both signatures, `X-Webhook-Signature` the new secret's and `X-Webhook-Signature-Previous` the old one's), so receivers can switch without dropping deliveries; `0` stops it at once. `previous_secret_expires_at` tells when it stops.",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: RotateSecretInput,
  response: { status: 200, description: "The endpoint and its new signing secret.", schema: WebhookEndpointWithSecret },
  errors: [404, 415, 422],
});

export const listEndpointDeliveriesOperation = defineOperation({
  operationId: "listWebhookEndpointDeliveries",
  method: "GET",
  path: `${endpointPath}/deliveries`,
  unscopedPath: `${endpointUnscopedPath}/deliveries`,
  summary: "List an endpoint's deliveries",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  query: EndpointDeliveriesQuery,
  response: {
    status: 200,
    description: "A page of deliveries, newest first.",
    schema: listEnvelopeSchema(Delivery, "DeliveryList"),
  },
  errors: [404],
});

export const retryFailedDeliveriesOperation = defineOperation({
  operationId: "retryFailedWebhookDeliveries",
  method: "POST",
  path: `${endpointPath}/retry-failed`,
  unscopedPath: `${endpointUnscopedPath}/retry-failed`,
  summary: "Retry an endpoint's failed deliveries",
  description:
    "Makes one new attempt now for each permanently failed delivery of the endpoint created since `since` (at most 100 per call; `has_more` tells whether to call again).",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: RetryFailedInput,
  response: { status: 200, description: "What the attempts did.", schema: RetryFailedResult },
  errors: [404, 415, 422],
});

export const getDeliveryOperation = defineOperation({
  operationId: "getDelivery",
  method: "GET",
  path: deliveryPath,
  unscopedPath: deliveryUnscopedPath,
  summary: "Retrieve a delivery",
  tag: deliveriesTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  response: { status: 200, description: "The delivery.", schema: Delivery },
  errors: [404],
});

export const listDeliveryAttemptsOperation = defineOperation({
  operationId: "listDeliveryAttempts",
  method: "GET",
  path: `${deliveryPath}/attempts`,
  unscopedPath: `${deliveryUnscopedPath}/attempts`,
  summary: "List a delivery's attempts",
  description: "Every attempt, first to last: status, duration, error and the first 4 KB of the response.",
  tag: deliveriesTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  response: { status: 200, description: "The attempts, as a bare array.", schema: DeliveryAttemptArray },
  errors: [404],
});

export const retryDeliveryOperation = defineOperation({
  operationId: "retryDelivery",
  method: "POST",
  path: `${deliveryPath}/retry`,
  unscopedPath: `${deliveryUnscopedPath}/retry`,
  summary: "Retry a failed delivery",
  description:
    "Makes one new attempt now of a permanently failed delivery and answers with the delivery after it. Any other state is a 409.",
  tag: deliveriesTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  response: { status: 200, description: "The delivery after the attempt.", schema: Delivery },
  errors: [404, 409],
});

const coreWebhookOperations = [
  createWebhookEndpointOperation,
  listWebhookEndpointsOperation,
  getWebhookEndpointOperation,
  updateWebhookEndpointOperation,
  deleteWebhookEndpointOperation,
  rotateWebhookSecretOperation,
  listEndpointDeliveriesOperation,
  retryFailedDeliveriesOperation,
  getDeliveryOperation,
  listDeliveryAttemptsOperation,
  retryDeliveryOperation,
];


export const endpointHealthOperation = defineOperation({
  operationId: "getWebhookEndpointHealth",
  method: "GET",
  path: `${endpointPath}/health`,
  unscopedPath: `${endpointUnscopedPath}/health`,
  summary: "An endpoint's delivery health over the last 24 hours, and its lag right now",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  response: {
    status: 200,
    description: "Delivery counts and success rate; the age of the oldest due delivery and the throughput of the last minutes.",
    schema: EndpointDeliveryHealth,
  },
  errors: [404],
});

export const accountHealthOperation = defineOperation({
  operationId: "getDeliveryHealth",
  method: "GET",
  path: "/{account_id}/delivery-health",
  unscopedPath: "/delivery-health",
  summary: "The account's delivery health over the last 24 hours",
  tag: deliveriesTag,
  access: "secret",
  permission: needs("webhook_endpoints", "read"),
  response: { status: 200, description: "Delivery counts and success rate.", schema: DeliveryHealth },
});

export const sendTestEventOperation = defineOperation({
  operationId: "sendWebhookTestEvent",
  method: "POST",
  path: `${endpointPath}/test`,
  unscopedPath: `${endpointUnscopedPath}/test`,
  summary: "Send a test event to an endpoint",
  description:
    "With `type`: sends a realistic sample event of that catalogue type to this endpoint only (a new sample entity; the payload carries `\"test\": true`). Without it: delivers the account's newest event of a subscribed type again (409 when there is none yet). Either way a new delivery, signed and retried like any other, listed in the endpoint's deliveries.",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: TestEventInput,
  response: { status: 201, description: "The new delivery.", schema: Delivery },
  errors: [404, 409, 415, 422],
});

export const sampleEventOperation = defineOperation({
  operationId: "createSampleEvent",
  method: "POST",
  path: "/{account_id}/events/test",
  unscopedPath: "/events/test",
  summary: "Create a test event (behind `npm run listen -- --trigger`)",
  description:
    "Stores a realistic sample event of `type` (the samples of \"Send test event\"; a new sample entity, `\"test\": true` in the payload) delivered to no endpoint: the event feed carries it to `npm run listen`, which forwards it to the local URL.",
  tag: "Events",
  access: "secret",
  permission: needs("events", "write"),
  body: SampleEventInput,
  response: { status: 201, description: "The test event.", schema: Event },
  errors: [415, 422],
});

export const replayOperation = defineOperation({
  operationId: "replayWebhookEndpointEvents",
  method: "POST",
  path: `${endpointPath}/replay`,
  unscopedPath: `${endpointUnscopedPath}/replay`,
  summary: "Replay a window of events to an endpoint",
  description:
    "A new delivery to this endpoint of every event created in [`since`, `until`) that it subscribes to, delivered ones included, oldest first, at most 1000 per call: while `has_more`, call again with the same window and `starting_after`. Receivers see each event's usual `webhook-id` and skip what they already have. 409 for a disabled endpoint.",
  tag: endpointsTag,
  access: "secret",
  permission: needs("webhook_endpoints", "write"),
  role: "developer",
  body: ReplayInput,
  response: { status: 200, description: "How many deliveries were made.", schema: ReplayResult },
  errors: [404, 409, 415, 422],
});

export const resendEventOperation = defineOperation({
  operationId: "resendEvent",
  method: "POST",
  path: "/{account_id}/events/{event_id}/resend",
  unscopedPath: "/events/{event_id}/resend",
  summary: "Resend an event to a chosen endpoint",
  description:
    "A new delivery of this event to the endpoint `endpoint_id`, whatever types it subscribes to, signed and retried like any other and listed in the event's and the endpoint's deliveries. Receivers see the event's usual `webhook-id`. 404 for an unknown event or endpoint, 409 for a disabled endpoint.",
  tag: "Events",
  access: "secret",
  permission: needs("events", "write"),
  role: "developer",
  body: ResendEventInput,
  response: { status: 201, description: "The new delivery.", schema: Delivery },
  errors: [404, 409, 415, 422],
});

export const eventFeedOperation = defineOperation({
  operationId: "readEventFeed",
  method: "GET",
  path: "/{account_id}/events/feed",
  unscopedPath: "/events/feed",
  summary: "Wait for new events (the feed behind `npm run listen`)",
  description:
    "A long poll: answers as soon as an event newer than `after` exists (or after `wait` seconds, empty), with the events as their webhook payloads, oldest first, and the cursor to pass next. Each answer also repeats the few seconds before the cursor, so an event whose transaction committed late is not missed: skip ids you already have. Resuming with a stored cursor loses nothing.",
  tag: "Events",
  access: "secret",
  permission: needs("events", "read"),
  query: EventFeedQuery,
  response: { status: 200, description: "New events and the next cursor.", schema: EventFeed },
  errors: [422],
});

export const webhookOperations = [
  ...coreWebhookOperations,
  endpointHealthOperation,
  accountHealthOperation,
  sendTestEventOperation,
  sampleEventOperation,
  replayOperation,
  resendEventOperation,
  eventFeedOperation,
];
