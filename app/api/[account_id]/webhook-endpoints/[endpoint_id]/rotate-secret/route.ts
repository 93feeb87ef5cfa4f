import { handle, routeHandlers } from "@/lib/api/handler";
import { rotateWebhookSecret } from "@/lib/webhooks/endpoints";
import { rotateWebhookSecretOperation } from "@/lib/webhooks/operations";
import { serializeWebhookEndpoint } from "@/lib/webhooks/serialize";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(rotateWebhookSecretOperation, async ({ ctx, params, body }) => {
    const { endpoint, secret } = await rotateWebhookSecret({
      ctx,
      input: { id: params.endpoint_id, overlapSeconds: body.overlap_seconds },
    });
    return { ...serializeWebhookEndpoint(endpoint, ctx.livemode), secret };
  }),
});
