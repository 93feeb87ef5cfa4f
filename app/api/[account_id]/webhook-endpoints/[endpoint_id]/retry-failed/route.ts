import { handle, routeHandlers } from "@/lib/api/handler";
import { retryFailedDeliveries } from "@/lib/webhooks/deliveries";
import { retryFailedDeliveriesOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(retryFailedDeliveriesOperation, ({ ctx, params, body }) =>
    retryFailedDeliveries({ ctx, input: { endpointId: params.endpoint_id, since: new Date(body.since) } }),
  ),
});
