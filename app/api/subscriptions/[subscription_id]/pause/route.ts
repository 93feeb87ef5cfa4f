import { handle, routeHandlers } from "@/lib/api/handler";
import { pauseSubscriptionOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { pauseSubscription } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(pauseSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await pauseSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
});
