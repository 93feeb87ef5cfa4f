import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createSubscriptionOperation, listSubscriptionsOperation } from "@/lib/subscriptions/operations";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import { createSubscription, listSubscriptions } from "@/lib/subscriptions/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listSubscriptionsOperation, async ({ ctx, query }) => {
    const { items, ...info } = await listSubscriptions({ ctx, input: query });
    return envelope(items.map((item) => serializeSubscription(item, ctx.livemode)), info);
  }),
  POST: handle(createSubscriptionOperation, async ({ ctx, body }) =>
    serializeSubscription(await createSubscription({ ctx, input: body }), ctx.livemode),
  ),
});
