import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { addSubscriptionItemOperation, listSubscriptionItemsOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription, serializeSubscriptionItem } from "@/lib/subscriptions/serialize";
import { addSubscriptionItem, listSubscriptionItems } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listSubscriptionItemsOperation, async ({ ctx, params }) => {
    const items = await listSubscriptionItems({ ctx, input: { id: params.subscription_id } });
    return envelope(items.map(serializeSubscriptionItem), { total: items.length, hasMore: false });
  }),
  POST: handle(addSubscriptionItemOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await addSubscriptionItem({ ctx, input: { id: params.subscription_id, item: body } }), ctx.livemode),
  ),
});
