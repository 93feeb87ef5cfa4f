import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { listEventsOperation } from "@/lib/events/operations";
import { serializeEvent } from "@/lib/events/serialize";
import { listEvents } from "@/lib/events/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEventsOperation, async ({ ctx, query }) => {
    const { limit, offset, ...filters } = query;
    const page = { limit, offset };
    const { rows, total } = await listEvents({ ctx, input: { filters, page } });
    return envelope(rows.map(serializeEvent), total, page);
  }),
});
