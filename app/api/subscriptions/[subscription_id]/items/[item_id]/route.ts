import { handle, routeHandlers } from "@/lib/api/handler";
import { removeSubscriptionItemOperation, updateSubscriptionItemOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { removeSubscriptionItem, updateSubscriptionItem } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(updateSubscriptionItemOperation, async ({ ctx, params, body }) =>
    serializeSubscription(
      await updateSubscriptionItem({ ctx, input: { id: params.subscription_id, itemId: params.item_id, quantity: body.quantity } }),
      ctx.livemode,
    ),
  ),
  DELETE: handle(removeSubscriptionItemOperation, async ({ ctx, params }) =>
    serializeSubscription(
      await removeSubscriptionItem({ ctx, input: { id: params.subscription_id, itemId: params.item_id } }),
      ctx.livemode,
    ),
  ),
});
