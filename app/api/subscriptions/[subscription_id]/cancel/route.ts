import { handle, routeHandlers } from "@/lib/api/handler";
import { cancelSubscriptionOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { cancelSubscription } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(cancelSubscriptionOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await cancelSubscription({ ctx, input: { id: params.subscription_id, options: body } }), ctx.livemode),
  ),
});
