import { handle, routeHandlers } from "@/lib/api/handler";
import { cancelChangeRequestOperation } from "@/lib/subscription-changes/operations";
import { serializeChangeRequest } from "@/lib/subscription-changes/serialize";
import { cancelChangeRequest } from "@/lib/subscription-changes/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(cancelChangeRequestOperation, async ({ ctx, params }) =>
    serializeChangeRequest(
      await cancelChangeRequest({ ctx, input: { subscriptionId: params.subscription_id, id: params.change_request_id } }),
      ctx.livemode,
    ),
  ),
});
