import { eq } from "drizzle-orm";
import type { z } from "zod";
import { prices, subscriptionItems, subscriptions } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { assertStatus, change, emit, itemsOf, recurringPrice, refuseMeteredQuantity, scheduleOfSubscription } from "./core";
import { SUBSCRIPTION_ACTION_FROM } from "./rules";
import type { SubscriptionItemInput } from "./schema";
import type { SubscriptionItemRow, SubscriptionRow, SubscriptionWithItems } from "./serialize";
import { getSubscription } from "./service";
import { taxRatesOf } from "@/lib/tax-rates/service";
import { closeMeteredItem, usageSinceFor } from "@/lib/usage/billing";

/*
 * The items of a subscription: the item verbs of the API (they take effect from the next renewal
 * invoice, no proration), and one item change applied inside a change request's transaction
 * (lib/subscription-changes validates it under the subscription's lock, then calls applyItemChange).
 */

export async function listSubscriptionItems({ ctx, input }: Verb<{ id: string }>): Promise<SubscriptionItemRow[]> {
  return (await getSubscription({ ctx, input })).items;
}

/** Item changes take effect from the next renewal invoice (no proration). */
export async function addSubscriptionItem({
  ctx,
  input,
}: Verb<{ id: string; item: z.output<typeof SubscriptionItemInput> }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    assertStatus(subscription, "changed", SUBSCRIPTION_ACTION_FROM.changeItems);
    const schedule = await scheduleOfSubscription(tx, { subscription, items });
    const price = await recurringPrice(tx, ctx.accountId, input.item.price, "price", schedule);
    if (items.some((item) => item.priceId === price.id)) {
      throw validationFailed([{ field: "price", message: `Price '${price.id}' is already an item; change its quantity instead.` }]);
    }
    if (items.length >= 20) throw validationFailed([{ field: "price", message: "A subscription has at most 20 items." }]);
    refuseMeteredQuantity(price, input.item.quantity, "quantity");
    const rates = await taxRatesOf(tx, ctx.accountId, input.item.tax_rates ?? [], "tax_rates");
    await tx.insert(subscriptionItems).values({
      id: newId("subscriptionItem"),
      subscriptionId: subscription.id,
      priceId: price.id,
      quantity: input.item.quantity ?? 1,
      taxRateIds: rates.map((rate) => rate.id),
      // Its usage counts from now: what the meter measured before was not this item's.
      usageSince: price.usageType === "metered" ? usageSinceFor(subscription, now) : null,
      created: now,
      updated: now,
    });
    return true;
  });
}

function itemOf(subscription: SubscriptionRow, items: SubscriptionItemRow[], itemId: string): SubscriptionItemRow {
  const item = items.find((row) => row.id === itemId);
  if (!item) throw notFound("subscription item", itemId);
  assertStatus(subscription, "changed", SUBSCRIPTION_ACTION_FROM.changeItems);
  return item;
}

export async function updateSubscriptionItem({
  ctx,
  input,
}: Verb<{ id: string; itemId: string; quantity: number }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    const item = itemOf(subscription, items, input.itemId);
    const [price] = await tx.select().from(prices).where(eq(prices.id, item.priceId));
    if (price) refuseMeteredQuantity(price, input.quantity, "quantity");
    if (item.quantity === input.quantity) return false;
    await tx.update(subscriptionItems).set({ quantity: input.quantity, updated: now }).where(eq(subscriptionItems.id, item.id));
    return true;
  });
}

export async function removeSubscriptionItem({ ctx, input }: Verb<{ id: string; itemId: string }>): Promise<SubscriptionWithItems> {
  return change(ctx, input.id, "customer.subscription.updated", async (tx, { subscription, items }, now) => {
    const item = itemOf(subscription, items, input.itemId);
    if (items.length === 1) {
      throw new ServiceError(
        "conflict",
        `Item '${item.id}' is the last item of subscription '${subscription.id}'; cancel the subscription instead.`,
      );
    }
    // A metered item's usage so far is billed on the next invoice.
    await closeMeteredItem(tx, subscription, item, now);
    await tx.update(subscriptionItems).set({ deletedAt: now, updated: now }).where(eq(subscriptionItems.id, item.id));
    return true;
  });
}

/** One change of a subscription's items, already validated against the locked subscription. */
export type ItemChange =
  | { type: "switch_price"; itemId: string; priceId: string }
  | { type: "set_quantity"; itemId: string; quantity: number }
  | { type: "add_item"; priceId: string; quantity: number }
  | { type: "remove_item"; itemId: string };

/**
 * Writes one item change of a subscription locked by `tx` (lockSubscription in core.ts) and emits
 * `customer.subscription.updated` with the full subscription before and after, in that
 * transaction. A switched item keeps its id; an added item gets a new one (returned as `itemId`).
 */
export async function applyItemChange(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: SubscriptionWithItems,
  itemChange: ItemChange,
  now: Date,
): Promise<{ after: SubscriptionWithItems; itemId: string }> {
  let itemId: string;
  // The change request checked the item under this lock (lib/subscription-changes/plan.ts).
  const current = (id: string) => {
    const item = before.items.find((row) => row.id === id);
    if (!item) throw notFound("subscription item", id);
    return item;
  };
  const metered = async (priceId: string) =>
    (await tx.select({ usageType: prices.usageType }).from(prices).where(eq(prices.id, priceId)))[0]?.usageType === "metered";
  switch (itemChange.type) {
    case "switch_price": {
      itemId = itemChange.itemId;
      // Usage accrued at the old (metered) price is billed at it on the next invoice; the new
      // metered price bills from now, and a metered item has quantity 1 (docs/rules/usage.md).
      await closeMeteredItem(tx, before.subscription, current(itemId), now);
      const toMetered = await metered(itemChange.priceId);
      await tx
        .update(subscriptionItems)
        .set({
          priceId: itemChange.priceId,
          usageSince: toMetered ? usageSinceFor(before.subscription, now) : null,
          ...(toMetered ? { quantity: 1 } : {}),
          updated: now,
        })
        .where(eq(subscriptionItems.id, itemId));
      break;
    }
    case "set_quantity":
      itemId = itemChange.itemId;
      await tx.update(subscriptionItems).set({ quantity: itemChange.quantity, updated: now }).where(eq(subscriptionItems.id, itemId));
      break;
    case "add_item":
      itemId = newId("subscriptionItem");
      await tx.insert(subscriptionItems).values({
        id: itemId,
        subscriptionId: before.subscription.id,
        priceId: itemChange.priceId,
        quantity: itemChange.quantity,
        usageSince: (await metered(itemChange.priceId)) ? usageSinceFor(before.subscription, now) : null,
        created: now,
        updated: now,
      });
      break;
    case "remove_item":
      itemId = itemChange.itemId;
      await closeMeteredItem(tx, before.subscription, current(itemId), now);
      await tx.update(subscriptionItems).set({ deletedAt: now, updated: now }).where(eq(subscriptionItems.id, itemId));
      break;
  }
  const subscription = one(await tx.update(subscriptions).set({ updated: now }).where(eq(subscriptions.id, before.subscription.id)).returning());
  const after = { subscription: subscription, items: await itemsOf(tx, before.subscription.id) };
  await emit(tx, ctx, "customer.subscription.updated", after, before);
  return { after, itemId };
}
