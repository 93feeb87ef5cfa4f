import { and, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { meters, prices, subscriptionItems, subscriptions, subscriptionUsageSegments } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { finalUsageDescription, subscriptionNameOf } from "@/lib/invoices/descriptions";
import type { UsageLineInput } from "@/lib/invoices/lines";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { amountOf, safeAtoms } from "@/lib/prices/amount";
import { requireTermsIn } from "@/lib/prices/in-currency";
import { lineRange } from "@/lib/time";
import { aggregateUsage } from "./read";


/**
 * When a subscription's renewal falls due: its period end, plus the account's usage grace when it
 * has a metered item, or usage of one a change closed still to bill (late events of the period
 * still count; docs/usage-billing.md). SQL over `subscriptions`, for the clock's due and earliest
 * queries.
 */
export const renewalDueAt: SQL<Date> = sql<Date>`(${subscriptions.currentPeriodEnd} + case when exists (
    select 1 from subscription_items si join prices p on p.id = si.price_id
    where si.subscription_id = ${subscriptions.id} and si.deleted_at is null and p.usage_type = 'metered')
    or exists (select 1 from subscription_usage_segments g where g.subscription_id = ${subscriptions.id} and g.settled_at is null)
  then (select a.usage_grace_seconds from accounts a where a.id = ${subscriptions.accountId}) * interval '1 second'
  else interval '0' end)`;

/** The grace (ms) the renewal of these items waits after the period end: 0 without metered items. */
export async function renewalGraceMs(executor: Executor, subscriptionId: string): Promise<number> {
  const [row] = await executor
    .select({ at: sql<string>`(extract(epoch from ${renewalDueAt} - ${subscriptions.currentPeriodEnd}) * 1000)::bigint::text` })
    .from(subscriptions)
    .where(eq(subscriptions.id, subscriptionId));
  return Number(row?.at ?? 0);
}

type PriceRow = typeof prices.$inferSelect;
type MeterRow = typeof meters.$inferSelect;

/** One metered range to bill: a live item's part of the period, or a segment a change closed. */
type MeteredRange = { price: PriceRow; meter: MeterRow; taxRateIds: string[]; start: Date; end: Date };

/**
 * "API calls × 1,200 (1 Jan 2027 – 1 Feb 2027)": the meter's name (with its aggregation unless a
 * sum), the units and the range, as Stripe's usage lines read. The line names its price; the meter
 * is the price's, so every billed unit still traces to events.
 */
export function usageLineDescription(meter: { displayName: string; aggregation: string }, units: number, start: Date, end: Date): string {
  const what = meter.aggregation === "sum" ? meter.displayName : `${meter.displayName} (${meter.aggregation})`;
  return `${what} × ${units.toLocaleString("en-US")} (${lineRange(start, end)})`;
}

/**
 * The line of one metered range: its quantity is the meter's aggregated usage of the customer over
 * [start, end) (meter values are integers ≥ 0, so every aggregation is a whole number; max and last
 * without events are 0), its amount the price's for that quantity (`amountOf`): per unit
 * (`unit_amount_atom` the price's), or by its tiers (`unit_amount_atom` 0, as every tiered line). The description
 * names the meter, the units and the range (usageLineDescription).
 */
async function rangeLine(executor: Executor, subscription: { customerId: string; currency: string }, range: MeteredRange): Promise<UsageLineInput> {
  const { price, meter, start, end } = range;
  const units = (await aggregateUsage(meter, subscription.customerId, start, end, executor)) ?? 0;
  if (!Number.isSafeInteger(units)) throw new RangeError(`Usage of ${meter.id} exceeds 2^53 - 1 units.`);
  // In the subscription's currency: the price's own amount or its currency option's (checked when the item was added).
  const terms = requireTermsIn(price, subscription.currency, "price");
  const amount = safeAtoms(amountOf(terms, units));
  if (amount === null) throw new RangeError(`Usage of ${meter.id} costs more than 2^53 - 1 atoms.`);
  return {
    price: price.id,
    quantity: units,
    unit_amount_atom: terms.billingScheme === "tiered" ? 0 : terms.unitAmountAtom,
    amount_atom: amount,
    ...(range.taxRateIds.length > 0 ? { tax_rates: range.taxRateIds } : {}),
    period: { start, end },
    description: usageLineDescription(meter, units, start, end),
  };
}

/**
 * The invoice lines of the subscription's usage up to `end`: first the segments changes closed
 * (a metered item removed or switched away from mid-period, docs/rules/usage.md), then one line per
 * live metered item over [start, end) — from its `usage_since` when it was added or switched to
 * mid-period. `settleUsageSegments` then marks those segments billed.
 */
export async function usageLines(
  executor: Executor,
  subscription: { id: string; accountId: string; customerId: string; currency: string },
  start: Date,
  end: Date,
): Promise<UsageLineInput[]> {
  const items = await executor
    .select({ price: prices, meter: meters, taxRateIds: subscriptionItems.taxRateIds, usageSince: subscriptionItems.usageSince })
    .from(subscriptionItems)
    .innerJoin(prices, eq(prices.id, subscriptionItems.priceId))
    .innerJoin(meters, eq(meters.id, prices.meterId))
    .where(
      and(
        eq(subscriptionItems.subscriptionId, subscription.id),
        sql`${subscriptionItems.deletedAt} is null`,
        inArray(prices.usageType, ["metered"]),
      ),
    )
    .orderBy(subscriptionItems.created, subscriptionItems.id);
  const segments = await executor
    .select({ price: prices, meter: meters, taxRateIds: subscriptionUsageSegments.taxRateIds, start: subscriptionUsageSegments.start, end: subscriptionUsageSegments.end })
    .from(subscriptionUsageSegments)
    .innerJoin(prices, eq(prices.id, subscriptionUsageSegments.priceId))
    .innerJoin(meters, eq(meters.id, prices.meterId))
    .where(and(eq(subscriptionUsageSegments.subscriptionId, subscription.id), isNull(subscriptionUsageSegments.settledAt)))
    .orderBy(subscriptionUsageSegments.start, subscriptionUsageSegments.id);
  const ranges: MeteredRange[] = [
    ...segments,
    ...items.map(({ usageSince, ...item }) => ({
      ...item,
      start: usageSince && usageSince.getTime() > start.getTime() ? usageSince : start,
      end,
    })),
  ];
  const lines: UsageLineInput[] = [];
  for (const range of ranges) lines.push(await rangeLine(executor, subscription, range));
  return lines;
}

/** Marks the subscription's open usage segments billed on `invoiceId` (null: skipped, as a paused period's usage). */
export async function settleUsageSegments(tx: ChangeTransaction, subscriptionId: string, invoiceId: string | null, at: Date): Promise<void> {
  await tx
    .update(subscriptionUsageSegments)
    .set({ settledAt: at, invoiceId })
    .where(and(eq(subscriptionUsageSegments.subscriptionId, subscriptionId), isNull(subscriptionUsageSegments.settledAt)));
}

/**
 * A change is about to remove `item` or switch it to another price at `now`: when it bills a
 * metered price, the usage it accrued this period — [period start or its `usage_since`, now) —
 * becomes a segment billed on the next invoice (as Stripe bills a removed metered item's usage).
 */
export async function closeMeteredItem(
  tx: ChangeTransaction,
  subscription: { id: string; accountId: string; currentPeriodStart: Date },
  item: { id: string; priceId: string; taxRateIds: string[]; usageSince: Date | null },
  now: Date,
): Promise<void> {
  const [price] = await tx.select({ usageType: prices.usageType }).from(prices).where(eq(prices.id, item.priceId));
  if (price?.usageType !== "metered") return;
  const start = item.usageSince && item.usageSince.getTime() > subscription.currentPeriodStart.getTime() ? item.usageSince : subscription.currentPeriodStart;
  if (now.getTime() <= start.getTime()) return;
  await tx.insert(subscriptionUsageSegments).values({
    accountId: subscription.accountId,
    subscriptionId: subscription.id,
    subscriptionItemId: item.id,
    priceId: item.priceId,
    taxRateIds: item.taxRateIds,
    start,
    end: now,
    created: now,
  });
}

/** A metered item added or switched to at `now` bills usage from then on (null: from its period start). */
export function usageSinceFor(subscription: { currentPeriodStart: Date }, now: Date): Date | null {
  return now.getTime() > subscription.currentPeriodStart.getTime() ? now : null;
}

/**
 * A cancelled subscription's final invoice: the usage of its metered items from the period start
 * to `end` (the cancellation) and the segments changes closed, finalized. Nothing when it has
 * neither.
 */
export async function billFinalUsage(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  subscription: {
    id: string;
    accountId: string;
    customerId: string;
    currency: string;
    currentPeriodStart: Date;
    collectionMethod?: "charge_automatically" | "send_invoice";
    daysUntilDue?: number | null;
  },
  end: Date,
): Promise<void> {
  const usage = await usageLines(tx, subscription, subscription.currentPeriodStart, end);
  if (usage.length === 0) return;
  const draft = await createInvoice({
    ctx,
    tx,
    input: {
      customer: subscription.customerId,
      currency: subscription.currency,
      description: finalUsageDescription(await subscriptionNameOf(tx, subscription.id), subscription.currentPeriodStart, end),
      usage,
      subscription: subscription.id,
      // A send_invoice subscription's final invoice is emailed and waits for payment, as its renewals.
      ...(subscription.collectionMethod === "send_invoice" ? { collection_method: "send_invoice" as const, days_until_due: subscription.daysUntilDue ?? undefined } : {}),
    },
  });
  await settleUsageSegments(tx, subscription.id, draft.invoice.id, ctx.now());
  await finalizeInvoice({ ctx, tx, input: { id: draft.invoice.id } });
  await tx.update(subscriptions).set({ latestInvoiceId: draft.invoice.id }).where(eq(subscriptions.id, subscription.id));
}
