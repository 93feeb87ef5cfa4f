import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { createWebhookEndpoint, listWebhookEndpoints } from "@/lib/webhooks/endpoints";
import { createWebhookEndpointOperation, listWebhookEndpointsOperation } from "@/lib/webhooks/operations";
import { serializeWebhookEndpoint } from "@/lib/webhooks/serialize";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listWebhookEndpointsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listWebhookEndpoints({ ctx, input: query });
    return envelope(rows.map((row) => serializeWebhookEndpoint(row, ctx.livemode)), info);
  }),
  POST: handle(createWebhookEndpointOperation, async ({ ctx, body }) => {
    const { endpoint, secret } = await createWebhookEndpoint({ ctx, input: body });
    return { ...serializeWebhookEndpoint(endpoint, ctx.livemode), secret };
  }),
});
