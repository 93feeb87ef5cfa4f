import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { serializeDelivery } from "@/lib/events/serialize";
import { listEndpointDeliveries } from "@/lib/webhooks/deliveries";
import { listEndpointDeliveriesOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEndpointDeliveriesOperation, async ({ ctx, params, query }) => {
    const { status, ...page } = query;
    const { rows, ...info } = await listEndpointDeliveries({ ctx, input: { endpointId: params.endpoint_id, status, page } });
    return envelope(rows.map(serializeDelivery), info);
  }),
});
