import { handle, routeHandlers } from "@/lib/api/handler";
import { listDeliveryAttempts } from "@/lib/webhooks/deliveries";
import { listDeliveryAttemptsOperation } from "@/lib/webhooks/operations";
import { serializeDeliveryAttempt } from "@/lib/webhooks/serialize";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listDeliveryAttemptsOperation, async ({ ctx, params }) =>
    (await listDeliveryAttempts({ ctx, input: { deliveryId: params.delivery_id } })).map(serializeDeliveryAttempt),
  ),
});
