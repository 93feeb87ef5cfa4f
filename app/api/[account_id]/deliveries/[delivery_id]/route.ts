import { handle, routeHandlers } from "@/lib/api/handler";
import { serializeDelivery } from "@/lib/events/serialize";
import { getDelivery } from "@/lib/webhooks/deliveries";
import { getDeliveryOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getDeliveryOperation, async ({ ctx, params }) =>
    serializeDelivery(await getDelivery({ ctx, input: { id: params.delivery_id } })),
  ),
});
