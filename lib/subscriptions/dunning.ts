import { and, eq, isNotNull, lte } from "drizzle-orm";
import { customers, invoices, subscriptions } from "@/db/schema";
import { columnTransition, dueRowLock } from "@/lib/clock/due";
import type { ServiceContext } from "@/lib/context";
import { emit, loadInvoice, lockInvoice } from "@/lib/invoices/core";
import type { InvoiceRow } from "@/lib/invoices/serialize";
import { markUncollectibleForNonPayment, payInvoice } from "@/lib/invoices/settle";
import { collectionMethodOf } from "@/lib/invoices/collection-method";
import { chargeInFlightOfInvoice } from "@/lib/payments/service";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { cancelForNonPayment, markPastDue } from "./collection-status";
import type { SubscriptionRow } from "./serialize";
import { DAY_MS } from "@/lib/time";


/**
 * Dunning (Stripe's smart retries, on a fixed schedule): when automatic collection of a renewal
 * invoice fails, it is retried this many days after that first failure — 3, 5 and 7 days — each
 * time with the subscription's `default_payment_method` as it is then (else the customer's). When the last retry fails,
 * the invoice is marked uncollectible and the subscription cancelled. 1 + 3 attempts in all.
 */
export const DUNNING_RETRY_DAYS: readonly number[] = [3, 5, 7];

/**
 * When to try again after automatic attempt number `attempt` (1 = the renewal's) failed, or null
 * when it was the last. `scheduledAt` is when that attempt was due (its own time for the first):
 * retries keep to the schedule even when a runner takes them late.
 */
export function nextAttemptAfter(attempt: number, scheduledAt: Date): Date | null {
  if (attempt > DUNNING_RETRY_DAYS.length) return null;
  const previousDay = attempt === 1 ? 0 : DUNNING_RETRY_DAYS[attempt - 2]!;
  return new Date(scheduledAt.getTime() + (DUNNING_RETRY_DAYS[attempt - 1]! - previousDay) * DAY_MS);
}

/**
 * How an attempt ended as far as its transaction knows: paid, failed (declined, action required,
 * partly funded, no method), or in flight at a network processor, whose answer is applied after
 * the commit (its failure then reaches `automaticCollectionFailed` through the invoice).
 */
type AttemptOutcome = "paid" | "failed" | "in_flight";

/**
 * One automatic collection attempt of an open invoice, in the caller's transaction. The attempt is
 * counted and the next retry set before paying, so the outcome's events (`invoice.payment_failed`
 * with Stripe's `attempt_count` and `next_payment_attempt`) show them; a payment clears the retry
 * (markPaid). Without a payment method the attempt fails as in Stripe: `invoice.payment_failed`
 * and no payment intent; so does one of a deleted customer, whose methods are charged no more
 * (createPaymentIntent refuses them: a refusal here would stop the clock of the whole account).
 */
async function attemptCollection(tx: ChangeTransaction, ctx: ServiceContext, invoice: InvoiceRow, paymentMethod: string | null): Promise<AttemptOutcome> {
  const now = ctx.now();
  const attempt = invoice.attemptCount + 1;
  const nextPaymentAttempt = nextAttemptAfter(attempt, attempt === 1 ? now : (invoice.nextPaymentAttempt ?? now));
  const counted = one(await tx
    .update(invoices)
    .set({ attemptCount: attempt, nextPaymentAttempt, updated: now })
    .where(eq(invoices.id, invoice.id))
    .returning());
  const [customer] = await tx.select({ deletedAt: customers.deletedAt }).from(customers).where(eq(customers.id, invoice.customerId));
  if (paymentMethod === null || customer?.deletedAt) {
    await emit(tx, ctx, "invoice.payment_failed", await loadInvoice(tx, counted), null);
    return "failed";
  }
  const after = await payInvoice({ ctx, tx, input: { id: invoice.id, payment: { payment_method: paymentMethod } } });
  if (after.invoice.status === "paid") return "paid";
  return (await chargeInFlightOfInvoice(tx, ctx.accountId, invoice.id)) === null ? "failed" : "in_flight";
}

/** The last retry failed: the invoice is marked uncollectible and the subscription cancelled (its other invoices in dunning locked first). */
async function giveUp(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string): Promise<void> {
  await lockDunningInvoices(tx, ctx, subscriptionId);
  await markUncollectibleForNonPayment({ ctx, tx, input: { id: invoiceId } });
  await cancelForNonPayment(tx, ctx, subscriptionId);
}

/**
 * An automatic collection attempt of one of the subscription's invoices failed (the invoice's
 * payment outcome, in its transaction: lib/invoices/settled.ts). An active subscription becomes
 * past_due; after the last retry (none scheduled, every retry made) the invoice is marked
 * uncollectible and the subscription cancelled. Idempotent: the renewal and the retry that made a
 * failed sandbox attempt call the same steps after it, and find them done.
 */
export async function automaticCollectionFailed(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, subscriptionId: string): Promise<void> {
  const [invoice] = await tx.select().from(invoices).where(eq(invoices.id, invoiceId));
  if (invoice?.status !== "open") return;
  if (invoice.nextPaymentAttempt !== null || invoice.attemptCount <= DUNNING_RETRY_DAYS.length) {
    await markPastDue(tx, ctx, subscriptionId);
    return;
  }
  const [subscription] = await tx.select({ status: subscriptions.status }).from(subscriptions).where(eq(subscriptions.id, subscriptionId)).for("update");
  if (subscription?.status === "past_due") await giveUp(tx, ctx, invoiceId, subscriptionId);
}

/**
 * Automatic collection of a renewal invoice just finalized (the renewal's transaction, the
 * subscription locked): with a payment method (the subscription's `default_payment_method`, else
 * the customer's: lib/invoices/collection-method.ts) it is paid with it at once; if that fails
 * (declined, action required, partially funded) an active subscription becomes past_due and
 * dunning retries the invoice. Without one nothing is attempted: the invoice stays open for the
 * merchant to collect, and the subscription's status does not change.
 */
export async function collectRenewalInvoice(tx: ChangeTransaction, ctx: ServiceContext, invoice: InvoiceRow, subscription: SubscriptionRow): Promise<void> {
  const method = await collectionMethodOf(tx, { subscriptionMethod: subscription.defaultPaymentMethod, customerId: subscription.customerId });
  if (method === null) return;
  // In flight: its outcome decides, when it arrives (automaticCollectionFailed); never past_due before.
  if ((await attemptCollection(tx, ctx, invoice, method)) === "failed") await markPastDue(tx, ctx, subscription.id);
}

/**
 * Locks the subscription's invoices in dunning before their retries are stopped (a cancellation),
 * NOWAIT like every invoice change: while an operation holds one (a merchant paying it), 409
 * `invoice_locked` and nothing changes — the caller's transaction rolls back. Never a deadlock
 * with that operation, which holds the invoice and waits for the subscription.
 */
export async function lockDunningInvoices(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string): Promise<void> {
  const retried = await tx
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.status, "open"), isNotNull(invoices.nextPaymentAttempt)));
  for (const { id } of retried) await lockInvoice(tx, ctx.accountId, id);
}

/** Open invoices with a dunning retry scheduled; and those whose retry is due at `now`. */
const awaitingRetry = and(eq(invoices.status, "open"), isNotNull(invoices.nextPaymentAttempt));
const retryDue = (now: Date) => and(awaitingRetry, lte(invoices.nextPaymentAttempt, now));

/**
 * One dunning retry, the invoice locked (skip locked: another runner has it) and re-checked. A
 * retry of an invoice whose subscription is no longer past_due (cancelled meanwhile) only ends its
 * dunning. The last retry failing: `invoice.marked_uncollectible`, then `customer.subscription.cancelled`.
 */
async function retryPayment(ctx: ServiceContext, invoiceId: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const [invoice] = await tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.accountId, ctx.accountId), eq(invoices.id, invoiceId), retryDue(now)))
      .for("update", dueRowLock());
    if (!invoice) return false;
    const [subscription] = invoice.subscriptionId
      ? await tx.select().from(subscriptions).where(eq(subscriptions.id, invoice.subscriptionId)).for("update")
      : [];
    if (subscription?.status !== "past_due") {
      await tx.update(invoices).set({ nextPaymentAttempt: null, updated: now }).where(eq(invoices.id, invoice.id));
      return true;
    }
    // Paid, or in flight at a network processor: a failure arriving later gives up then (automaticCollectionFailed).
    const method = await collectionMethodOf(tx, { subscriptionMethod: subscription.defaultPaymentMethod, customerId: subscription.customerId });
    if ((await attemptCollection(tx, ctx, invoice, method)) !== "failed") return true;
    const [after] = await tx.select({ status: invoices.status, next: invoices.nextPaymentAttempt }).from(invoices).where(eq(invoices.id, invoice.id));
    if (after!.status === "open" && after!.next === null) await giveUp(tx, ctx, invoice.id, subscription.id);
    return true;
  });
}

/** An open invoice's next dunning attempt falls due at `next_payment_attempt`. */
export const dunningRetries = columnTransition({
  name: "dunning_retry",
  table: invoices,
  id: invoices.id,
  accountId: invoices.accountId,
  dueAt: invoices.nextPaymentAttempt,
  pending: awaitingRetry,
  // A customer's retries take turns (its balance, its subscriptions' dunning); different customers' run side by side.
  lane: invoices.customerId,
  run: retryPayment,
});
