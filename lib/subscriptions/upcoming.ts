import { collectionMethodOf } from "@/lib/invoices/collection-method";
import type { Executor } from "@/db/client";
import type { ServiceContext } from "@/lib/context";
import { balanceOf } from "@/lib/customer-balance/service";
import { ServiceError } from "@/lib/errors";
import { previewInvoice, type InvoicePreview } from "@/lib/invoices/preview";
import { changeOutcome, type ChangeToPreview } from "@/lib/subscription-changes/outcome";
import { renewalGraceMs, usageLines } from "@/lib/usage/billing";
import { prorationInvoiceDescription, subscriptionNameOf } from "@/lib/invoices/descriptions";
import { prorationLineDescription } from "@/lib/invoices/lines";
import { renewalDescription, renewalLines, scheduleOfSubscription } from "./core";
import { nextPeriodEnd } from "./period";
import type { SubscriptionWithItems } from "./serialize";

/*
 * The next invoices of a subscription, as they would be finalized, stored nowhere: one builder for
 * `invoice.upcoming` (lib/subscriptions/transitions.ts) and `POST /invoices/preview`
 * (lib/flows/upcoming-invoice.ts). It follows the renewal (renewal.ts) step by step; docs/rules/invoices.md,
 * "Invoice previews".
 */

export type Period = { start: Date; end: Date };

export type UpcomingInvoices = {
  /** The renewal's invoice at the end of the current period (finalized when the renewal falls due). */
  renewal: InvoicePreview & { period: Period };
  /** A change applied now: the proration invoice applying it collects at once, before the renewal; else null. */
  proration: (InvoicePreview & { period: Period }) | null;
  /** A change applied now that lowers the price: the credit it writes to the balance (credit.ts) before the renewal. */
  prorationCreditAtom: number;
};

/** Why the subscription's next renewal makes no invoice, or null when it does. */
function noRenewalInvoice(subscription: SubscriptionWithItems["subscription"]): string | null {
  return subscription.status === "cancelled"
    ? "is cancelled"
    : subscription.status === "paused"
      ? "is paused (its renewal bills nothing)"
      : subscription.cancelAtPeriodEnd
        ? "ends at the period end (cancel_at_period_end; no renewal invoice)"
        : null;
}

/**
 * The proration invoice applying a change collects at once, as collect.ts makes it (one custom
 * line, finalized when the change is applied), or null when nothing is due now.
 */
async function prorationInvoice(
  executor: Executor,
  ctx: ServiceContext,
  subscription: SubscriptionWithItems["subscription"],
  amountDueNowAtom: number,
  at: Date,
  balance: number,
): Promise<UpcomingInvoices["proration"]> {
  if (amountDueNowAtom <= 0) return null;
  const invoice = await previewInvoice(executor, ctx, {
    customer: subscription.customerId,
    currency: subscription.currency,
    subscription: subscription.id,
    description: prorationInvoiceDescription(await subscriptionNameOf(executor, subscription.id), at, subscription.currentPeriodEnd),
    lines: [{ unit_amount_atom: amountDueNowAtom, quantity: 1, description: prorationLineDescription(at, subscription.currentPeriodEnd), proration: true }],
    at,
    startingBalanceAtom: balance,
    nextPaymentAttempt: at,
  });
  return { ...invoice, period: { start: at, end: subscription.currentPeriodEnd } };
}

/**
 * What a change request shows beside its amounts (docs/billing.md, "What a change request shows"):
 * the totals of the invoices it leads to, computed by the previews, so with the discount and the
 * taxes finalization applies: the proration invoice's (0: none) and the next renewal's (null when
 * the subscription does not renew: cancelled at the period end, paused).
 */
export async function changeTotals(
  executor: Executor,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  change: ChangeToPreview,
): Promise<{ amountDueNowTotalAtom: number; nextInvoiceTotalAtom: number | null }> {
  if (noRenewalInvoice(current.subscription) === null) {
    const upcoming = await upcomingInvoices(executor, ctx, current, { change });
    return { amountDueNowTotalAtom: upcoming.proration?.invoice.totalAmountAtom ?? 0, nextInvoiceTotalAtom: upcoming.renewal.invoice.totalAmountAtom };
  }
  const { subscription } = current;
  const outcome = await changeOutcome(executor, ctx, current, change);
  const balance = await balanceOf(executor, subscription.customerId, subscription.currency);
  const proration = await prorationInvoice(executor, ctx, subscription, outcome.amountDueNowAtom, change.prorationDate, balance);
  return { amountDueNowTotalAtom: proration?.invoice.totalAmountAtom ?? 0, nextInvoiceTotalAtom: null };
}

/** Refuses (409) a subscription whose next renewal makes no invoice. */
export function assertRenewalBills(current: SubscriptionWithItems): void {
  const { subscription } = current;
  const why = noRenewalInvoice(subscription);
  if (why) throw new ServiceError("conflict", `Subscription '${subscription.id}' ${why}: there is no upcoming invoice to preview.`);
}

/**
 * The renewal at `current_period_end` as renewOnePeriod would make it: the usage of the period's
 * metered items so far (read before the changes, as the renewal does), the items after the pending
 * changes (and `change`), the customer's discount in force when it falls due, the taxes, and the
 * balance as it stands (less what a proration invoice takes first). `id`: the id the renewal
 * invoice will carry (`invoice.upcoming` reserves it).
 */
export async function upcomingInvoices(
  executor: Executor,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  options: { id?: string; change?: ChangeToPreview },
): Promise<UpcomingInvoices> {
  assertRenewalBills(current);
  const { subscription } = current;
  const outcome = await changeOutcome(executor, ctx, current, options.change ?? null);
  const balance = await balanceOf(executor, subscription.customerId, subscription.currency);
  const proration = options.change ? await prorationInvoice(executor, ctx, subscription, outcome.amountDueNowAtom, options.change.prorationDate, balance) : null;
  // A decrease is credited to the balance with the change (never beside a proration invoice: that is an increase).
  const prorationCreditAtom = outcome.effective === "now" && outcome.prorationAmountAtom < 0 ? -outcome.prorationAmountAtom : 0;
  // An item a change adds has no tax rates (as when the change writes it).
  const items = outcome.itemsAtRenewal.map((item) => ({
    priceId: item.priceId,
    quantity: item.quantity,
    taxRateIds: current.items.find((row) => row.id === item.id)?.taxRateIds ?? [],
  }));
  const dueAt = new Date(subscription.currentPeriodEnd.getTime() + (await renewalGraceMs(executor, subscription.id)));
  const schedule = await scheduleOfSubscription(executor, current);
  const end = nextPeriodEnd(subscription.trialEnd ?? subscription.created, subscription.currentPeriodEnd, schedule.interval, schedule.intervalCount);
  const lines = await renewalLines(executor, items);
  const ended = { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  const invoice = await previewInvoice(executor, ctx, {
    id: options.id,
    customer: subscription.customerId,
    currency: subscription.currency,
    subscription: subscription.id,
    description: await renewalDescription(executor, items, lines.length, { start: subscription.currentPeriodEnd, end }, ended),
    lines,
    usage: await usageLines(executor, subscription, subscription.currentPeriodStart, subscription.currentPeriodEnd),
    at: dueAt,
    startingBalanceAtom: proration ? proration.invoice.endingBalanceAtom! : balance + prorationCreditAtom,
    // The renewal collects with the default payment method (the subscription's, else the customer's) when it falls due (dunning.ts); send_invoice never does.
    nextPaymentAttempt:
      subscription.collectionMethod === "charge_automatically" &&
      (await collectionMethodOf(executor, { subscriptionMethod: subscription.defaultPaymentMethod, customerId: subscription.customerId })) !== null
        ? dueAt
        : null,
    collectionMethod: subscription.collectionMethod,
    daysUntilDue: subscription.daysUntilDue,
  });
  return { renewal: { ...invoice, period: { start: subscription.currentPeriodEnd, end } }, proration, prorationCreditAtom };
}
