import { handle, routeHandlers } from "@/lib/api/handler";
import { getChangeRequestOperation } from "@/lib/subscription-changes/operations";
import { serializeChangeRequest } from "@/lib/subscription-changes/serialize";
import { getChangeRequest } from "@/lib/subscription-changes/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getChangeRequestOperation, async ({ ctx, params }) =>
    serializeChangeRequest(
      await getChangeRequest({ ctx, input: { subscriptionId: params.subscription_id, id: params.change_request_id } }),
      ctx.livemode,
    ),
  ),
});
