import { handle, routeHandlers } from "@/lib/api/handler";
import { serializeDelivery } from "@/lib/events/serialize";
import { retryDelivery } from "@/lib/webhooks/deliveries";
import { retryDeliveryOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(retryDeliveryOperation, async ({ ctx, params }) =>
    serializeDelivery(await retryDelivery({ ctx, input: { id: params.delivery_id } })),
  ),
});
