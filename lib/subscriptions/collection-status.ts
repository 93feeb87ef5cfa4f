import { and, asc, eq, isNotNull, isNull, ne } from "drizzle-orm";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { invoices, subscriptionItems, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import type { EventType } from "@/lib/events/catalogue";
import { recordSubscriptionChange } from "./record";
import { dropScheduledChanges } from "@/lib/subscription-changes/drop";
import { one } from "@/lib/rows";
import type { SubscriptionRow } from "./serialize";

/*
 * How collecting a subscription's invoices moves the subscription (the dunning half of the status
 * table in docs/rules/time.md, "Dunning"): active → past_due when automatic collection fails, past_due →
 * active when no invoice of it is left in dunning, past_due → cancelled when dunning gives up.
 * This module imports nothing from lib/invoices, so the invoice internals (markPaid) can call it
 * without an import cycle.
 */

/** Changes the subscription's status fields and emits `type` with the full object before and after. */
async function changeStatus(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  subscriptionId: string,
  type: EventType,
  applies: (row: SubscriptionRow) => boolean,
  fields: (now: Date) => Partial<typeof subscriptions.$inferInsert>,
): Promise<boolean> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId)).for("update");
  if (!row || !applies(row)) return false;
  const items = await tx
    .select()
    .from(subscriptionItems)
    .where(and(eq(subscriptionItems.subscriptionId, row.id), isNull(subscriptionItems.deletedAt)))
    .orderBy(asc(subscriptionItems.created), asc(subscriptionItems.id));
  const now = ctx.now();
  const after = one(await tx
    .update(subscriptions)
    .set({ ...fields(now), updated: now })
    .where(eq(subscriptions.id, row.id))
    .returning());
  await recordSubscriptionChange(tx, ctx, type, { subscription: after, items }, { subscription: row, items });
  return true;
}

/** Automatic collection of one of its invoices failed: an active subscription becomes past_due. */
export async function markPastDue(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string): Promise<boolean> {
  return changeStatus(tx, ctx, subscriptionId, "customer.subscription.updated", (row) => row.status === "active", (now) => ({
    status: "past_due",
    pastDueSince: now,
  }));
}

/**
 * An invoice of the subscription left dunning (paid by any means, voided, or marked uncollectible
 * by the merchant): a past_due subscription with no other invoice still in dunning is active
 * again. Called in the transaction that settled the invoice.
 */
export async function settleSubscriptionOf(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string | null): Promise<void> {
  if (subscriptionId === null) return;
  // Most paid invoices belong to subscriptions in good standing: no lock for them.
  const [current] = await tx.select({ status: subscriptions.status }).from(subscriptions).where(eq(subscriptions.id, subscriptionId));
  if (current?.status !== "past_due") return;
  const [pending] = await tx
    .select({ id: invoices.id })
    .from(invoices)
    .where(
      and(
        eq(invoices.subscriptionId, subscriptionId),
        ne(invoices.id, invoiceId),
        eq(invoices.status, "open"),
        isNotNull(invoices.nextPaymentAttempt),
      ),
    )
    .limit(1);
  if (pending) return;
  await changeStatus(tx, ctx, subscriptionId, "customer.subscription.updated", (row) => row.status === "past_due", () => ({
    status: "active",
    pastDueSince: null,
  }));
}

/**
 * Dunning gave up (the last retry failed): the past_due subscription is cancelled now, and no other
 * invoice of it is retried any more (they stay open for the merchant to collect, void or write off).
 */
export async function cancelForNonPayment(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string): Promise<boolean> {
  const cancelled = await changeStatus(
    tx,
    ctx,
    subscriptionId,
    "customer.subscription.cancelled",
    (row) => row.status === "past_due",
    (now) => ({ status: "cancelled", cancelledAt: now, cancelAtPeriodEnd: false, upcomingInvoiceId: null, pendingChanges: [] }),
  );
  if (cancelled) {
    await stopDunning(tx, ctx, subscriptionId);
    await dropScheduledChanges(tx, ctx, subscriptionId);
  }
  return cancelled;
}

/** No more retries for the subscription's open invoices (the caller holds their locks, or accepts waiting for them). */
export async function stopDunning(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string): Promise<void> {
  await tx
    .update(invoices)
    .set({ nextPaymentAttempt: null, updated: ctx.now() })
    .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, "open"), isNotNull(invoices.nextPaymentAttempt)));
}
