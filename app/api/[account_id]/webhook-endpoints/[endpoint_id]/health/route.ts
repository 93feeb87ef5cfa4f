import { handle, routeHandlers } from "@/lib/api/handler";
import { endpointHealth } from "@/lib/webhooks/health";
import { endpointHealthOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(endpointHealthOperation, ({ ctx, params }) => endpointHealth({ ctx, input: { endpointId: params.endpoint_id } })),
});
