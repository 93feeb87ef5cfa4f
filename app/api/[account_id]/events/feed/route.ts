import { handle, routeHandlers } from "@/lib/api/handler";
import { readEventFeed } from "@/lib/webhooks/feed";
import { eventFeedOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(eventFeedOperation, async ({ ctx, query }) => {
    const { items, nextCursor } = await readEventFeed({ ctx, input: query });
    return { object: "event_feed" as const, items, next_cursor: nextCursor };
  }),
});
