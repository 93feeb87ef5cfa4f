import { handle, routeHandlers } from "@/lib/api/handler";
import { serializeDelivery } from "@/lib/events/serialize";
import { getDelivery, sendTestEvent } from "@/lib/webhooks/deliveries";
import { sendTestEventOperation } from "@/lib/webhooks/operations";
import { sendSampleEvent } from "@/lib/webhooks/test-events";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(sendTestEventOperation, async ({ ctx, params, body }) => {
    const endpointId = params.endpoint_id;
    if (!body.type) return serializeDelivery(await sendTestEvent({ ctx, input: { endpointId } }));
    const deliveryId = await sendSampleEvent({ ctx, input: { endpointId, type: body.type } });
    return serializeDelivery(await getDelivery({ ctx, input: { id: deliveryId } }));
  }),
});
