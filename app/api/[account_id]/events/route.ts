import { handle, routeHandlers } from "@/lib/api/handler";
import { eventListPage } from "@/lib/events/list-page";
import { listEventsOperation } from "@/lib/events/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listEventsOperation, async ({ ctx, query }) => eventListPage({ ctx, input: query })),
});
