import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { serializeDelivery, serializeEvent } from "@/lib/events-api/serialize";
import { getEvent } from "@/lib/events-api/service";
import {
  getDelivery,
  listDeliveryAttempts,
  listEndpointDeliveries,
  retryDelivery,
  retryFailedDeliveries,
  sendTestEvent,
} from "./deliveries";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from "./endpoints";
import { readEventFeed } from "./feed";
import { deliveryHealth, endpointHealth } from "./health";
import {
  accountHealthOperation,
  createWebhookEndpointOperation,
  deleteWebhookEndpointOperation,
  endpointHealthOperation,
  eventFeedOperation,
  getDeliveryOperation,
  getWebhookEndpointOperation,
  listDeliveryAttemptsOperation,
  listEndpointDeliveriesOperation,
  listWebhookEndpointsOperation,
  replayOperation,
  resendEventOperation,
  retryDeliveryOperation,
  retryFailedDeliveriesOperation,
  rotateWebhookSecretOperation,
  sampleEventOperation,
  sendTestEventOperation,
  updateWebhookEndpointOperation,
} from "./operations";
import { replayWindow } from "./replay";
import { resendEvent } from "./resend";
import { serializeDeliveryAttempt, serializeWebhookEndpoint } from "./serialize";
import { sendSampleEvent } from "./test-events";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const webhookHandlers = [
  handle(createWebhookEndpointOperation, async ({ ctx, body }) => {
    const { endpoint, secret } = await createWebhookEndpoint({ ctx, input: body });
    return { ...serializeWebhookEndpoint(endpoint, ctx.livemode), secret };
  }),
  handle(listWebhookEndpointsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listWebhookEndpoints({ ctx, input: query });
    return envelope(rows.map((row) => serializeWebhookEndpoint(row, ctx.livemode)), info);
  }),
  handle(getWebhookEndpointOperation, async ({ ctx, params }) =>
    serializeWebhookEndpoint(await getWebhookEndpoint({ ctx, input: { id: params.endpoint_id } }), ctx.livemode),
  ),
  handle(updateWebhookEndpointOperation, async ({ ctx, params, body }) =>
    serializeWebhookEndpoint(
      await updateWebhookEndpoint({ ctx, input: { id: params.endpoint_id, changes: body } }),
      ctx.livemode,
    ),
  ),
  handle(deleteWebhookEndpointOperation, async ({ ctx, params }) => {
    const { id } = await deleteWebhookEndpoint({ ctx, input: { id: params.endpoint_id } });
    return { id, object: "webhook_endpoint" as const, deleted: true as const };
  }),
  handle(rotateWebhookSecretOperation, async ({ ctx, params, body }) => {
    const { endpoint, secret } = await rotateWebhookSecret({
      ctx,
      input: { id: params.endpoint_id, overlapSeconds: body.overlap_seconds },
    });
    return { ...serializeWebhookEndpoint(endpoint, ctx.livemode), secret };
  }),
  handle(listEndpointDeliveriesOperation, async ({ ctx, params, query }) => {
    const { status, ...page } = query;
    const { rows, ...info } = await listEndpointDeliveries({ ctx, input: { endpointId: params.endpoint_id, status, page } });
    return envelope(rows.map(serializeDelivery), info);
  }),
  handle(retryFailedDeliveriesOperation, ({ ctx, params, body }) =>
    retryFailedDeliveries({ ctx, input: { endpointId: params.endpoint_id, since: new Date(body.since) } }),
  ),
  handle(getDeliveryOperation, async ({ ctx, params }) =>
    serializeDelivery(await getDelivery({ ctx, input: { id: params.delivery_id } })),
  ),
  handle(listDeliveryAttemptsOperation, async ({ ctx, params }) =>
    (await listDeliveryAttempts({ ctx, input: { deliveryId: params.delivery_id } })).map(serializeDeliveryAttempt),
  ),
  handle(retryDeliveryOperation, async ({ ctx, params }) =>
    serializeDelivery(await retryDelivery({ ctx, input: { id: params.delivery_id } })),
  ),
  handle(endpointHealthOperation, ({ ctx, params }) => endpointHealth({ ctx, input: { endpointId: params.endpoint_id } })),
  handle(accountHealthOperation, ({ ctx }) => deliveryHealth({ ctx, input: {} })),
  handle(sendTestEventOperation, async ({ ctx, params, body }) => {
    const endpointId = params.endpoint_id;
    if (!body.type) return serializeDelivery(await sendTestEvent({ ctx, input: { endpointId } }));
    const { deliveryId } = await sendSampleEvent({ ctx, input: { endpointId, type: body.type } });
    // Given an endpoint, the verb always makes its delivery (null only without one: POST /events/test).
    return serializeDelivery(await getDelivery({ ctx, input: { id: deliveryId! } }));
  }),
  handle(sampleEventOperation, async ({ ctx, body }) => {
    const { eventId } = await sendSampleEvent({ ctx, input: { type: body.type } });
    return serializeEvent(await getEvent({ ctx, input: { id: eventId } }));
  }),
  handle(replayOperation, async ({ ctx, params, body }) =>
    replayWindow({
      ctx,
      input: {
        endpointId: params.endpoint_id,
        since: new Date(body.since),
        until: body.until ? new Date(body.until) : undefined,
        startingAfter: body.starting_after,
      },
    }),
  ),
  handle(eventFeedOperation, async ({ ctx, query }) => {
    const { items, nextCursor } = await readEventFeed({ ctx, input: query });
    return { object: "event_feed" as const, items, next_cursor: nextCursor };
  }),
  handle(resendEventOperation, async ({ ctx, params, body }) =>
    serializeDelivery(await resendEvent({ ctx, input: { eventId: params.event_id, endpointId: body.endpoint_id } })),
  ),
];
