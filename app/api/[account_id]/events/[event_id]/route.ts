import { handle, routeHandlers } from "@/lib/api/handler";
import { getEventOperation } from "@/lib/events/operations";
import { serializeEvent } from "@/lib/events/serialize";
import { getEvent } from "@/lib/events/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getEventOperation, async ({ ctx, params }) =>
    serializeEvent(await getEvent({ ctx, input: { id: params.event_id } })),
  ),
});
