import { handle, routeHandlers } from "@/lib/api/handler";
import { serializeDelivery } from "@/lib/events/serialize";
import { sendTestEvent } from "@/lib/webhooks/deliveries";
import { sendTestEventOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(sendTestEventOperation, async ({ ctx, params }) =>
    serializeDelivery(await sendTestEvent({ ctx, input: { endpointId: params.endpoint_id } })),
  ),
});
