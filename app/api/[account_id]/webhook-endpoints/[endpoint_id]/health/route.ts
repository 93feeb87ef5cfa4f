import { handle, routeHandlers } from "@/lib/api/handler";
import { deliveryHealth } from "@/lib/webhooks/health";
import { endpointHealthOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(endpointHealthOperation, ({ ctx, params }) => deliveryHealth({ ctx, input: { endpointId: params.endpoint_id } })),
});
