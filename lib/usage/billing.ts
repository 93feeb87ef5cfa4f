import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { meters, prices, subscriptionItems, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { tieredAmount } from "@/lib/prices/tiers";
import { aggregateUsage } from "./read";

/** A custom-amount invoice line (InvoiceLineInput's second form). */
export type UsageLine = { unit_amount_atom: number; quantity: number; description: string; tax_rates?: string[] };

/**
 * When a subscription's renewal falls due: its period end, plus the account's usage grace when it
 * has a metered item (late events of the period still count; docs/usage-billing.md). SQL over
 * `subscriptions`, for the clock's due and earliest queries.
 */
export const renewalDueAt: SQL<Date> = sql<Date>`(${subscriptions.currentPeriodEnd} + case when exists (
    select 1 from subscription_items si join prices p on p.id = si.price_id
    where si.subscription_id = ${subscriptions.id} and si.deleted_at is null and p.usage_type = 'metered')
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

/**
 * One invoice line per metered item of the subscription: the meter's usage of the customer over
 * [start, end), priced per unit or by its tiers. The line is a custom amount (quantity 1): its
 * description names the meter, the units and the period, so every billed unit traces to events.
 */
export async function usageLines(
  executor: Executor,
  subscription: { id: string; accountId: string; customerId: string },
  start: Date,
  end: Date,
): Promise<UsageLine[]> {
  const items = await executor
    .select({ price: prices, meter: meters, taxRateIds: subscriptionItems.taxRateIds })
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
  const lines: UsageLine[] = [];
  for (const { price, meter, taxRateIds } of items) {
    const units = (await aggregateUsage(meter, subscription.customerId, start, end, executor)) ?? 0;
    const amount =
      price.billingScheme === "tiered"
        ? tieredAmount(price.tiers ?? [], price.tiersMode ?? "graduated", units)
        : BigInt(units) * BigInt(price.unitAmountAtom);
    if (amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Usage of ${meter.id} costs more than 2^53 - 1 atoms.`);
    lines.push({
      unit_amount_atom: Number(amount),
      quantity: 1,
      ...(taxRateIds.length > 0 ? { tax_rates: taxRateIds } : {}),
      description:
        `${meter.displayName} (${meter.id}, price ${price.id}): ${units} ${meter.aggregation === "sum" ? "units" : meter.aggregation}` +
        ` from ${start.toISOString()} to ${end.toISOString()}`,
    });
  }
  return lines;
}

/**
 * A cancelled subscription's final invoice: the usage of its metered items from the period start
 * to `end` (the cancellation), finalized. Nothing when it has no metered item.
 */
export async function billFinalUsage(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  subscription: { id: string; accountId: string; customerId: string; currency: string; currentPeriodStart: Date },
  end: Date,
): Promise<void> {
  const lines = await usageLines(tx, subscription, subscription.currentPeriodStart, end);
  if (lines.length === 0) return;
  const draft = await createInvoice({
    ctx,
    tx,
    input: {
      customer: subscription.customerId,
      currency: subscription.currency,
      description: `Subscription ${subscription.id}: final usage`,
      lines,
      subscription: subscription.id,
    },
  });
  await finalizeInvoice({ ctx, tx, input: { id: draft.invoice.id } });
  await tx.update(subscriptions).set({ latestInvoiceId: draft.invoice.id }).where(eq(subscriptions.id, subscription.id));
}
