import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { listEventsOperation } from "@/lib/events/operations";
import { serializeEvent } from "@/lib/events/serialize";
import { listEvents } from "@/lib/events/service";
import { deliverySummaries } from "@/lib/webhooks/health";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEventsOperation, async ({ ctx, query }) => {
    const { limit, offset, expand, ...filters } = query;
    const page = { limit, offset };
    const { rows, total } = await listEvents({ ctx, input: { filters, page } });
    const summaries = expand.has("delivery_summary")
      ? await deliverySummaries({ ctx, input: { eventIds: rows.map((row) => row.id) } })
      : null;
    const items = rows.map((row) => ({
      ...serializeEvent(row),
      ...(summaries ? { delivery_summary: summaries.get(row.id)! } : {}),
    }));
    return envelope(items, total, page);
  }),
});
