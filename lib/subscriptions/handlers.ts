import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { SubscriptionListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import {
  addSubscriptionItemOperation,
  cancelSubscriptionOperation,
  createSubscriptionOperation,
  getSubscriptionOperation,
  listSubscriptionItemsOperation,
  listSubscriptionsOperation,
  exportSubscriptionsOperation,
  pauseSubscriptionOperation,
  removeSubscriptionItemOperation,
  resumeSubscriptionOperation,
  updateSubscriptionItemOperation,
  updateSubscriptionOperation,
} from "./operations";
import { serializeSubscription, serializeSubscriptionItem } from "./serialize";
import {
  cancelSubscription,
  createSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  updateSubscription,
} from "./service";
import { addSubscriptionItem, listSubscriptionItems, removeSubscriptionItem, updateSubscriptionItem } from "./items";

/** A page of the subscriptions list, as the list answers it (also an export's batch). */
async function subscriptionPage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof SubscriptionListQuery> }) {
  const { items, ...info } = await listSubscriptions({ ctx, input: query });
  return envelope(items.map((item) => serializeSubscription(item, ctx.livemode)), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const subscriptionHandlers = [
  handle(listSubscriptionsOperation, subscriptionPage),
  handleExport(exportSubscriptionsOperation, "subscriptions", subscriptionPage),
  handle(createSubscriptionOperation, async ({ ctx, body }) =>
    serializeSubscription(await createSubscription({ ctx, input: body }), ctx.livemode),
  ),
  handle(getSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await getSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
  handle(updateSubscriptionOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await updateSubscription({ ctx, input: { id: params.subscription_id, changes: body } }), ctx.livemode),
  ),
  handle(pauseSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await pauseSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
  handle(resumeSubscriptionOperation, async ({ ctx, params }) =>
    serializeSubscription(await resumeSubscription({ ctx, input: { id: params.subscription_id } }), ctx.livemode),
  ),
  handle(cancelSubscriptionOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await cancelSubscription({ ctx, input: { id: params.subscription_id, options: body } }), ctx.livemode),
  ),
  handle(listSubscriptionItemsOperation, async ({ ctx, params }) => {
    const items = await listSubscriptionItems({ ctx, input: { id: params.subscription_id } });
    return envelope(items.map(serializeSubscriptionItem), { total: items.length, hasMore: false });
  }),
  handle(addSubscriptionItemOperation, async ({ ctx, params, body }) =>
    serializeSubscription(await addSubscriptionItem({ ctx, input: { id: params.subscription_id, item: body } }), ctx.livemode),
  ),
  handle(updateSubscriptionItemOperation, async ({ ctx, params, body }) =>
    serializeSubscription(
      await updateSubscriptionItem({ ctx, input: { id: params.subscription_id, itemId: params.item_id, quantity: body.quantity } }),
      ctx.livemode,
    ),
  ),
  handle(removeSubscriptionItemOperation, async ({ ctx, params }) =>
    serializeSubscription(
      await removeSubscriptionItem({ ctx, input: { id: params.subscription_id, itemId: params.item_id } }),
      ctx.livemode,
    ),
  ),
];
