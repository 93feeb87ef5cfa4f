import { handle, routeHandlers } from "@/lib/api/handler";
import { changePlanOperation } from "@/lib/subscription-changes/operations";
import { changePlan } from "@/lib/subscription-changes/service";
import { serializeSubscription } from "@/lib/subscriptions/serialize";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(changePlanOperation, async ({ ctx, params, body }) =>
    serializeSubscription(
      await changePlan({
        ctx,
        input: { subscriptionId: params.subscription_id, price: body.price, quantity: body.quantity, paymentMethod: body.payment_method },
      }),
      ctx.livemode,
    ),
  ),
});
