import { handle, routeHandlers } from "@/lib/api/handler";
import { deleteWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint } from "@/lib/webhooks/endpoints";
import {
  deleteWebhookEndpointOperation,
  getWebhookEndpointOperation,
  updateWebhookEndpointOperation,
} from "@/lib/webhooks/operations";
import { serializeWebhookEndpoint } from "@/lib/webhooks/serialize";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getWebhookEndpointOperation, async ({ ctx, params }) =>
    serializeWebhookEndpoint(await getWebhookEndpoint({ ctx, input: { id: params.endpoint_id } }), ctx.livemode),
  ),
  POST: handle(updateWebhookEndpointOperation, async ({ ctx, params, body }) =>
    serializeWebhookEndpoint(
      await updateWebhookEndpoint({ ctx, input: { id: params.endpoint_id, changes: body } }),
      ctx.livemode,
    ),
  ),
  DELETE: handle(deleteWebhookEndpointOperation, async ({ ctx, params }) => {
    const { id } = await deleteWebhookEndpoint({ ctx, input: { id: params.endpoint_id } });
    return { id, object: "webhook_endpoint" as const, deleted: true as const };
  }),
});
