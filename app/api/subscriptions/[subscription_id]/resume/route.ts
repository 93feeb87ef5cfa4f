import { handle, routeHandlers } from "@/lib/api/handler";
import { resumeSubscriptionOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { resumeSubscription } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(resumeSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await resumeSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
});
