import { handle, routeHandlers } from "@/lib/api/handler";
import { listEventDeliveriesOperation } from "@/lib/events/operations";
import { serializeDelivery } from "@/lib/events/serialize";
import { getEventWithDeliveries } from "@/lib/events/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEventDeliveriesOperation, async ({ ctx, params }) => {
    const { deliveries } = await getEventWithDeliveries({ ctx, input: { id: params.event_id } });
    return deliveries.map(serializeDelivery);
  }),
});
