import { handle, routeHandlers } from "@/lib/api/handler";
import { getSubscriptionOperation, updateSubscriptionOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { getSubscription, updateSubscription } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await getSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
  POST: handle(updateSubscriptionOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await updateSubscription({ ctx, input: { id: params.subscription_id, changes: body } }), ctx.livemode),
  ),
});
