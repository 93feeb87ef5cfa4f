import { handle, routeHandlers } from "@/lib/api/handler";
import { getEventFullOperation } from "@/lib/events/operations";
import { serializeDelivery, serializeEvent } from "@/lib/events/serialize";
import { getEventWithDeliveries } from "@/lib/events/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getEventFullOperation, async ({ ctx, params }) => {
    const { event, deliveries } = await getEventWithDeliveries({ ctx, input: { id: params.event_id } });
    return { event: serializeEvent(event), deliveries: deliveries.map(serializeDelivery) };
  }),
});
