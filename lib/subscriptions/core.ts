import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { invoices, prices, products, subscriptionItems, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import type { EventType } from "@/lib/events/catalogue";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import type { LineInput, UsageLineInput } from "@/lib/invoices/lines";
import { subscriptionInvoiceDescription, subscriptionName } from "@/lib/invoices/descriptions";
import type { CollectionMethod } from "@/lib/invoices/schema";
import { createInvoice } from "@/lib/invoices/service";
import { requireTermsIn } from "@/lib/prices/in-currency";
import { one } from "@/lib/rows";
import type { Interval } from "./period";
import { recordSubscriptionChange } from "./record";
import type { SubscriptionStatus } from "./schema";
import { type SubscriptionItemRow, type SubscriptionRow, type SubscriptionWithItems } from "./serialize";

/*
 * What the subscription verbs share (lifecycle in service.ts, items.ts, renewal.ts; the change
 * requests of lib/subscription-changes): the locked read, the price checks, the one locked change
 * with its event, and the draft invoice of the items.
 */

type PriceRow = typeof prices.$inferSelect;
/** What every item of a subscription shares: its prices' currency and recurrence. */
export type SubscriptionSchedule = { currency: string; interval: Interval; intervalCount: number };

export const ofAccount = (accountId: string, id: string) => and(eq(subscriptions.accountId, accountId), eq(subscriptions.id, id));

export async function itemsOf(executor: Executor, subscriptionId: string): Promise<SubscriptionItemRow[]> {
  return executor
    .select()
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.subscriptionId, subscriptionId), isNull(subscriptionItems.deletedAt)))
    .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
}

export async function lockSubscription(tx: ChangeTransaction, accountId: string, id: string): Promise<SubscriptionWithItems> {
  const [subscription] = await tx.select().from(subscriptions).where(ofAccount(accountId, id)).for("update");
  if (!subscription) throw notFound("subscription", id);
  return { subscription, items: await itemsOf(tx, id) };
}

/**
 * A price a subscription may bill: of the account, not deleted, active, recurring, and on the
 * subscription's schedule (an amount in its currency, the same interval and interval count). Anything else is a 422
 * naming the body field, as for an invoice line's price.
 */
export async function recurringPrice(executor: Executor, accountId: string, id: string, field: string, schedule: SubscriptionSchedule | null): Promise<PriceRow> {
  const [price] = await executor
    .select()
    .from(prices)
    .where(and(eq(prices.accountId, accountId), eq(prices.id, id), isNull(prices.deletedAt)));
  const refuse = (message: string) => validationFailed([{ field, message }], message);
  if (!price) throw refuse(`No such price: '${id}'.`);
  if (!price.active) throw refuse(`Price '${price.id}' is archived.`);
  if (price.type !== "recurring" || !price.recurringInterval || !price.recurringIntervalCount) {
    throw refuse(`Price '${price.id}' is one_time; a subscription needs recurring prices.`);
  }
  if (schedule) {
    // Its own currency or a currency option: the subscription bills the price in its currency.
    requireTermsIn(price, schedule.currency, field);
    if (price.recurringInterval !== schedule.interval || price.recurringIntervalCount !== schedule.intervalCount) {
      throw refuse(
        `Price '${price.id}' bills every ${price.recurringIntervalCount} ${price.recurringInterval}; the subscription bills every ${schedule.intervalCount} ${schedule.interval}.`,
      );
    }
  }
  return price;
}

/**
 * A metered item has no quantity (its usage is billed): one given is a 422 naming `field`. Its row
 * keeps quantity 1, which nothing bills (docs/usage-billing.md).
 */
export function refuseMeteredQuantity(price: PriceRow, quantity: number | undefined, field: string): void {
  if (price.usageType === "metered" && quantity !== undefined) {
    const message = `Price '${price.id}' is metered: its item has no quantity (usage is billed).`;
    throw validationFailed([{ field, message }], message);
  }
}

/** The schedule of a subscription whose first price is `price`, billed in `currency` (the customer's, or the price's own). */
export const scheduleOf = (price: PriceRow, currency: string = price.currency): SubscriptionSchedule => ({
  currency,
  // recurringPrice checked both are set.
  interval: price.recurringInterval!,
  intervalCount: price.recurringIntervalCount!,
});

/**
 * The subscription's schedule, from its first item's price (all items share it). Prices are never
 * changed in their schedule, so an archived or deleted one still tells it.
 */
export async function scheduleOfSubscription(
  executor: Executor,
  { subscription, items }: { subscription: Pick<SubscriptionRow, "currency">; items: SubscriptionItemRow[] },
): Promise<SubscriptionSchedule> {
  const [price] = await executor.select().from(prices).where(eq(prices.id, items[0]!.priceId));
  // The currency is the subscription's own: its prices bill in it from their own amount or a currency option.
  return scheduleOf(price!, subscription.currency);
}

export async function emit(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: EventType,
  after: SubscriptionWithItems,
  before: SubscriptionWithItems | null,
): Promise<void> {
  await recordSubscriptionChange(tx, ctx, type, after, before);
}

/**
 * The invoice lines of the items, each priced by its price (`amountOf`: per unit or by its tiers
 * for the quantity). An item whose price was archived or deleted since keeps billing what the
 * customer agreed to: the line still names the price (`subscribed`), with a description saying it
 * is no longer offered.
 */
export async function renewalLines(executor: Executor, items: Pick<SubscriptionItemRow, "priceId" | "quantity" | "taxRateIds">[]): Promise<LineInput[]> {
  const rows = await executor
    .select({ id: prices.id, usageType: prices.usageType, active: prices.active, deletedAt: prices.deletedAt, productName: products.name })
    .from(prices)
    .innerJoin(products, eq(products.id, prices.productId))
    .where(inArray(prices.id, items.map((item) => item.priceId)));
  // Metered items are billed in arrears from usage (lib/usage/billing.ts), not in advance.
  const licensed = items.filter((item) => rows.find((row) => row.id === item.priceId)?.usageType !== "metered");
  return licensed.map((item) => {
    const price = rows.find((row) => row.id === item.priceId)!;
    const taxes = item.taxRateIds.length > 0 ? { tax_rates: item.taxRateIds } : {};
    return price.active && price.deletedAt === null
      ? { price: price.id, quantity: item.quantity, ...taxes }
      : { price: price.id, subscribed: true as const, description: `${price.productName} (no longer offered)`, quantity: item.quantity, ...taxes };
  });
}

/**
 * A subscription's invoice in words (lib/invoices/descriptions.ts): its items' prices and the
 * period it bills: `period` (the items, in advance), or `usagePeriod` when it bills usage only (in
 * arrears: every item metered).
 */
export async function renewalDescription(
  executor: Executor,
  items: Pick<SubscriptionItemRow, "priceId">[],
  licensedLines: number,
  period: { start: Date; end: Date },
  usagePeriod?: { start: Date; end: Date },
): Promise<string> {
  const billed = licensedLines === 0 && usagePeriod ? usagePeriod : period;
  return subscriptionInvoiceDescription(await subscriptionName(executor, items.map((item) => item.priceId)), billed.start, billed.end);
}

/**
 * A draft invoice of the items for `period`, through the invoices service: in its own transaction
 * (creation), or in the caller's `tx`, then carrying the subscription, the id `invoice.upcoming`
 * reserved and the usage of `usagePeriod`.
 */
export async function draftInvoice(
  ctx: ServiceContext,
  subscription: Pick<SubscriptionRow, "id" | "customerId" | "currency" | "collectionMethod" | "daysUntilDue">,
  items: SubscriptionItemRow[],
  period: { start: Date; end: Date },
  within?: { tx: ChangeTransaction; id: string | null; usage?: UsageLineInput[]; usagePeriod?: { start: Date; end: Date } },
) {
  const executor = within?.tx ?? (await getDb());
  const lines = await renewalLines(executor, items);
  const input = {
    customer: subscription.customerId,
    currency: subscription.currency,
    description: await renewalDescription(executor, items, lines.length, period, within?.usagePeriod),
    lines,
    ...collectionInput(subscription),
  };
  if (!within) return createInvoice({ ctx, input });
  return createInvoice({ ctx, tx: within.tx, input: { ...input, id: within.id ?? undefined, subscription: subscription.id, usage: within.usage } });
}

/** A subscription's invoices carry its collection method (send_invoice: emailed, due days_until_due after finalization). */
export function collectionInput(subscription: { collectionMethod?: CollectionMethod; daysUntilDue?: number | null }) {
  return subscription.collectionMethod === "send_invoice"
    ? { collection_method: "send_invoice" as const, days_until_due: subscription.daysUntilDue ?? undefined }
    : {};
}

/** Links a draft the subscription produced to it (lib/invoices creates invoices without subscription). */
export async function linkInvoice(tx: ChangeTransaction, invoiceId: string, subscriptionId: string): Promise<void> {
  await tx.update(invoices).set({ subscriptionId }).where(and(eq(invoices.id, invoiceId), eq(invoices.status, "draft")));
}

export function assertStatus(subscription: SubscriptionRow, action: string, allowed: readonly SubscriptionStatus[]): void {
  if (!allowed.includes(subscription.status)) {
    throw new ServiceError(
      "conflict",
      `Subscription '${subscription.id}' is ${subscription.status}; only ${allowed.join(" or ")} subscriptions can be ${action}.`,
    );
  }
}


/**
 * One locked change: `change` writes and returns nothing, or returns false when nothing changed
 * (no event then). The state after is read back, so the event records exactly what is stored.
 */
export async function change(
  ctx: ServiceContext,
  id: string,
  type: EventType,
  apply: (tx: ChangeTransaction, before: SubscriptionWithItems, now: Date) => Promise<boolean>,
): Promise<SubscriptionWithItems> {
  return withChangeTransaction(async (tx) => {
    const before = await lockSubscription(tx, ctx.accountId, id);
    const now = ctx.now();
    if (!(await apply(tx, before, now))) return before;
    const subscription = one(await tx.update(subscriptions).set({ updated: now }).where(eq(subscriptions.id, id)).returning());
    const after = { subscription: subscription, items: await itemsOf(tx, id) };
    await emit(tx, ctx, type, after, before);
    return after;
  });
}

export const setFields = (tx: ChangeTransaction, id: string, fields: Partial<typeof subscriptions.$inferInsert>) =>
  tx.update(subscriptions).set(fields).where(eq(subscriptions.id, id));
