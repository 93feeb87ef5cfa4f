import { remainingCredit } from "@/lib/credit-grants/service";
import { and, eq, ne } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { meters, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { itemsOf } from "@/lib/subscriptions/core";
import { upcomingInvoices } from "@/lib/subscriptions/upcoming";
import { aggregateUsage } from "@/lib/usage/read";

/*
 * The value an alert compares with its threshold, one function per type (docs/usage-billing.md,
 * "Alerts"). Each reads the rule's own source of truth; none computes a price itself.
 */

/** usage_threshold: the meter's value of the customer over the period (the usage domain's aggregate; none: 0). */
export async function usageValue(accountId: string, meterId: string, customerId: string, period: { start: Date; end: Date }): Promise<number> {
  const db = await getDb();
  const [meter] = await db
    .select({ id: meters.id, accountId: meters.accountId, aggregation: meters.aggregation })
    .from(meters)
    .where(and(eq(meters.accountId, accountId), eq(meters.id, meterId)));
  if (!meter) return 0;
  return (await aggregateUsage(meter, customerId, period.start, period.end)) ?? 0;
}

/**
 * spend_threshold: the total of the customer's upcoming invoices in `currency`, the renewal of each
 * live subscription as `POST /invoices/preview` shows it (lib/subscriptions/upcoming.ts: its usage
 * so far, the discount, the taxes). A subscription whose renewal bills nothing (paused, ending at
 * the period end) adds 0, as does a customer without a subscription.
 */
export async function upcomingSpendAtom(ctx: ServiceContext, customerId: string, currency: string): Promise<number> {
  const db = await getDb();
  return db.transaction(
    async (tx) => {
      const live = await tx
        .select()
        .from(subscriptions)
        .where(
          and(eq(subscriptions.accountId, ctx.accountId), eq(subscriptions.customerId, customerId), ne(subscriptions.status, "cancelled"), eq(subscriptions.currency, currency)),
        );
      let total = 0;
      for (const subscription of live) {
        try {
          total += (await upcomingInvoices(tx, ctx, { subscription, items: await itemsOf(tx, subscription.id) }, {})).renewal.invoice.totalAmountAtom;
        } catch (error) {
          if (error instanceof ServiceError && error.category === "conflict") continue;
          throw error;
        }
      }
      return total;
    },
    { accessMode: "read only", isolationLevel: "repeatable read" },
  );
}

/**
 * credit_balance: the prepaid credit the customer has left in `currency` now, from its credit
 * grants (lib/credit-grants `remainingCredit`: effective, unexpired, not voided). Every grant
 * change marks the customer for evaluation (lib/credit-grants/service.ts `emitGrant`).
 */
export async function creditBalanceAtom(ctx: ServiceContext, executor: Executor, customerId: string, currency: string): Promise<number> {
  return remainingCredit({ ctx, customerId, currency, executor });
}
