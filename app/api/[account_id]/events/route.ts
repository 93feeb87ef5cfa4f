import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { listEventsOperation } from "@/lib/events/operations";
import { serializeEvent } from "@/lib/events/serialize";
import { listEvents } from "@/lib/events/service";
import { deliverySummaries } from "@/lib/webhooks/health";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEventsOperation, async ({ ctx, query }) => {
    const { expand, event_id, aggregate_id, aggregate_type, event_type, ...page } = query;
    const filters = { event_id, aggregate_id, aggregate_type, event_type };
    const { rows, ...info } = await listEvents({ ctx, input: { filters, page } });
    const summaries = expand.has("delivery_summary")
      ? await deliverySummaries({ ctx, input: { eventIds: rows.map((row) => row.id) } })
      : null;
    const items = rows.map((row) => ({
      ...serializeEvent(row),
      ...(summaries ? { delivery_summary: summaries.get(row.id)! } : {}),
    }));
    return envelope(items, info);
  }),
});
