import { inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { prices, type ChangeStep } from "@/db/schema";
import { validationFailed } from "@/lib/errors";
import { MAX_ITEMS } from "@/lib/subscriptions/schema";
import type { SubscriptionItemRow } from "@/lib/subscriptions/serialize";
import { recurringPrice, type SubscriptionSchedule } from "@/lib/subscriptions/core";
import type { ItemChange } from "@/lib/subscriptions/items";
import type { PriceInCurrencies } from "@/lib/prices/amount";
import { requireTermsIn } from "@/lib/prices/in-currency";
import type { PricedItem } from "./proration";

/**
 * A subscription item as a step sees it: `id` is null for an item an earlier step of the plan adds.
 * `price` is what its price charges (amountOf: per unit or by its tiers for the quantity). A
 * metered item has no quantity and is billed in arrears from usage: it prorates nothing (proration.ts
 * counts it 0) and its quantity stays 1.
 */
export type PlannedItem = PricedItem & { id: string | null; priceId: string };

type PriceRow = PriceInCurrencies & { id: string; usageType: string };

/** The price's terms in the subscription's currency (its own amount or its currency option's). */
const plannedPrice = (price: PriceRow, currency: string): Pick<PlannedItem, "price" | "metered"> => ({
  price: requireTermsIn(price, currency, "price"),
  metered: price.usageType === "metered",
});

export type StepContext = { executor: Executor; accountId: string; schedule: SubscriptionSchedule };

/** The items with their prices' terms in `currency`, the subscription's (an archived or deleted price still bills what it says). */
export async function plannedItems(executor: Executor, items: readonly SubscriptionItemRow[], currency: string): Promise<PlannedItem[]> {
  if (items.length === 0) return [];
  const rows = await executor
    .select({
      id: prices.id,
      currency: prices.currency,
      currencyOptions: prices.currencyOptions,
      billingScheme: prices.billingScheme,
      unitAmountAtom: prices.unitAmountAtom,
      tiersMode: prices.tiersMode,
      tiers: prices.tiers,
      usageType: prices.usageType,
    })
    .from(prices)
    .where(inArray(prices.id, items.map((item) => item.priceId)));
  return items.map((item) => ({
    id: item.id,
    priceId: item.priceId,
    quantity: item.quantity,
    // The foreign key guarantees the price row.
    ...plannedPrice(rows.find((row) => row.id === item.priceId)!, currency),
  }));
}

/**
 * Checks step `index` against `items`, the subscription's items just before it, with the rules of
 * the items API (an active recurring price on the subscription's schedule, each price once, at most
 * 20 items, never no item); returns the change to write and the items after it. A refusal is a 422
 * naming `steps.N.<field>`.
 */
export async function planStep(
  context: StepContext,
  items: readonly PlannedItem[],
  step: ChangeStep,
  index: number,
): Promise<{ change: ItemChange; items: PlannedItem[] }> {
  const field = (name: string) => `steps.${index}.${name}`;
  const refuse = (name: string, message: string) => validationFailed([{ field: field(name), message }], `${field(name)}: ${message}`);
  const currentItem = () => {
    const found = items.find((item) => item.id !== null && item.id === step.item);
    if (!found) throw refuse("item", `No item '${step.item}' on the subscription at this step (unknown, or removed by an earlier step).`);
    return found as PlannedItem & { id: string };
  };
  const newPrice = async () => {
    // Stored steps of these types always carry a price (see storedStep).
    const price = await recurringPrice(context.executor, context.accountId, step.price!, field("price"), context.schedule);
    if (items.some((item) => item.priceId === price.id)) {
      throw refuse("price", `Price '${price.id}' is already an item at this step; change that item's quantity instead.`);
    }
    return price;
  };

  switch (step.type) {
    case "switch_price": {
      const item = currentItem();
      if (item.priceId === step.price) throw refuse("price", `Item '${item.id}' already bills price '${item.priceId}'.`);
      const price = await newPrice();
      return {
        change: { type: "switch_price", itemId: item.id, priceId: price.id },
        items: items.map((row) => (row === item ? { ...row, priceId: price.id, ...plannedPrice(price, context.schedule.currency), quantity: price.usageType === "metered" ? 1 : row.quantity } : row)),
      };
    }
    case "set_quantity": {
      const item = currentItem();
      const quantity = step.quantity!;
      if (item.metered) throw refuse("quantity", `Item '${item.id}' bills a metered price: it has no quantity (its usage is billed).`);
      if (item.quantity === quantity) throw refuse("quantity", `Item '${item.id}' already has quantity ${quantity}.`);
      return {
        change: { type: "set_quantity", itemId: item.id, quantity },
        items: items.map((row) => (row === item ? { ...row, quantity } : row)),
      };
    }
    case "add_item": {
      const price = await newPrice();
      if (items.length >= MAX_ITEMS) throw refuse("price", `A subscription has at most ${MAX_ITEMS} items.`);
      // A metered price's quantity was refused at creation when given (createChangeRequest); it is 1.
      const quantity = price.usageType === "metered" ? 1 : (step.quantity ?? 1);
      return {
        change: { type: "add_item", priceId: price.id, quantity },
        items: [...items, { id: null, priceId: price.id, quantity, ...plannedPrice(price, context.schedule.currency) }],
      };
    }
    case "remove_item": {
      const item = currentItem();
      if (items.length === 1) {
        throw refuse(
          "item",
          `Removing '${item.id}' would leave the subscription without items; add the new item first, use switch_price, or cancel the subscription.`,
        );
      }
      return { change: { type: "remove_item", itemId: item.id }, items: items.filter((row) => row !== item) };
    }
  }
}
