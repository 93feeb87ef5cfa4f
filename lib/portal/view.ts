import { dateTimeFormat } from "@/lib/intl";
import { getDb } from "@/db/client";
import { getCustomer } from "@/lib/customers/service";
import { remainingCreditByCurrency } from "@/lib/credit-grants/service";
import { notFound } from "@/lib/errors";
import { invoicePdf } from "@/lib/invoices/hosted";
import { hostedInvoiceUrl, type InvoiceWithLines } from "@/lib/invoices/serialize";
import { getInvoice, listInvoices } from "@/lib/invoices/service";
import { formatAtoms } from "@/lib/money";
import { amountOf, startingAt, type PriceTerms } from "@/lib/prices/amount";
import { requireTermsIn } from "@/lib/prices/in-currency";
import { getPrice } from "@/lib/prices/service";
import { getProduct } from "@/lib/products/service";
import type { ChangeStep } from "@/db/schema";
import { getChangeRequest } from "@/lib/subscription-changes/service";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { getSubscription, listSubscriptions } from "@/lib/subscriptions/service";
import { renewalBills } from "@/lib/subscriptions/time";
import { upcomingInvoices } from "@/lib/subscriptions/upcoming";
import type { PortalSettings } from "./schema";
import { portalSettingsOf } from "./service";
import type { PortalSession } from "./sessions";

/*
 * What the portal pages read, always through the session's customer: another customer's
 * subscription or invoice (of this account or another) is "not found", exactly as an unknown id.
 */

/** The account's configuration, as the portal shows and enforces it. */
export async function portalSettings(session: PortalSession): Promise<PortalSettings> {
  return (await portalSettingsOf(await getDb(), session.ctx.accountId)).settings;
}

/** One of the session's customer's subscriptions, or not found. */
export async function ownSubscription(session: PortalSession, id: string): Promise<SubscriptionWithItems> {
  const found = await getSubscription({ ctx: session.ctx, input: { id } });
  if (found.subscription.customerId !== session.customerId) throw notFound("subscription", id);
  return found;
}

/** One of the session's customer's finalized invoices (drafts are the merchant's), or not found. */
export async function ownInvoice(session: PortalSession, id: string): Promise<InvoiceWithLines> {
  const found = await getInvoice({ ctx: session.ctx, input: { id } });
  if (found.invoice.customerId !== session.customerId || found.invoice.status === "draft") throw notFound("invoice", id);
  return found;
}

export async function portalCustomer(session: PortalSession) {
  const row = await getCustomer({ ctx: session.ctx, input: { id: session.customerId } });
  return { id: row.id, name: row.name, email: row.email, address: row.address, taxIds: row.taxIds };
}

export type PlanLabel = {
  priceId: string;
  label: string;
  currency: string;
  interval: string;
  /** What the price charges (lib/prices/amount.ts): a tiered price has no single unit amount. */
  terms: PriceTerms;
  /** Billed from usage: no amount in advance. */
  metered: boolean;
  /** How the price reads: "$10.00 per month", "$10.00 per unit per month", or "Tiered: from $1.00 per unit per month". */
  priceText: string;
};

/** "$10.00 per month" (per unit: "… per unit …" when the plan is sold by quantity), or "Tiered: from $1.00 per unit (+ $5.00) per month". */
function priceTextOf(terms: PriceTerms, currency: string, interval: string, metered: boolean): string {
  const money = (atoms: number) => formatAtoms(atoms, currency, "en");
  const per = interval === "once" ? "" : ` per ${interval}`;
  if (terms.billingScheme !== "tiered") return `${money(terms.unitAmountAtom)}${metered ? " per unit used" : ""}${per}`;
  const first = startingAt(terms);
  return `Tiered: from ${money(first.unitAmountAtom)} per unit${first.flatAmountAtom > 0 ? ` (+ ${money(first.flatAmountAtom)})` : ""}${per}`;
}

/**
 * A price as the customer reads it, in `currency` (their subscription's: the price's own amount or
 * its currency option's; a 422 when it has none): the product's name, the price's nickname, what
 * it charges per interval.
 */
export async function planLabel(session: PortalSession, priceId: string, currency: string): Promise<PlanLabel> {
  const price = await getPrice({ ctx: session.ctx, input: { id: priceId } });
  const terms = requireTermsIn(price, currency, "price");
  const product = await getProduct({ ctx: session.ctx, input: { id: price.productId } }).catch(() => null);
  const name = [product?.name, price.nickname].filter(Boolean).join(" · ") || price.id;
  const count = price.recurringIntervalCount ?? 1;
  const interval = price.recurringInterval ? (count === 1 ? price.recurringInterval : `${count} ${price.recurringInterval}s`) : "once";
  const metered = price.usageType === "metered";
  return { priceId: price.id, label: name, currency, interval, terms, metered, priceText: priceTextOf(terms, currency, interval, metered) };
}

/** An item as the customer reads it: its plan, its quantity and what that quantity costs per period (amountOf; null: billed from usage). */
export type PortalItem = { id: string; quantity: number; plan: PlanLabel; amountAtom: number | null };

async function portalItem(session: PortalSession, item: { id: string; quantity: number; priceId: string }, currency: string): Promise<PortalItem> {
  const plan = await planLabel(session, item.priceId, currency);
  // A subscription's amounts were bounded when it was made (≤ 2^53 − 1 per period).
  return { id: item.id, quantity: item.quantity, plan, amountAtom: plan.metered ? null : Number(amountOf(plan.terms, item.quantity)) };
}

/** A change request's steps as the customer reads them. */
export async function stepLabels(session: PortalSession, steps: readonly ChangeStep[], currency: string): Promise<string[]> {
  return Promise.all(
    steps.map(async (step) =>
      step.type === "switch_price" && step.price ? `New plan: ${(await planLabel(session, step.price, currency)).label}` : step.type === "set_quantity" ? `New quantity: ${step.quantity}` : step.type,
    ),
  );
}

export type PortalPendingChange = {
  id: string;
  effectiveAt: string;
  steps: string[];
  /** The renewal's total after the change, discount and taxes included (the request's `next_invoice_total_atom`; before totals existed, its `next_invoice_amount_atom`). */
  nextInvoiceAmountAtom: number;
  /** Scheduled in the portal: the customer may cancel it (one the merchant scheduled is the merchant's). */
  cancellable: boolean;
};

export type PortalSubscription = {
  id: string;
  status: string;
  currency: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: string;
  defaultPaymentMethod: string | null;
  items: PortalItem[];
  /** The renewal's date and total as it will be finalized (the upcoming invoice: pending changes, discount, taxes), null when nothing renews. */
  nextInvoice: { date: string; amountAtom: number } | null;
  /** Changes scheduled for the period end, in the order the renewal applies them. */
  pendingChanges: PortalPendingChange[];
};

export async function portalSubscription(session: PortalSession, found: SubscriptionWithItems): Promise<PortalSubscription> {
  const { subscription } = found;
  const items = await Promise.all(found.items.map((item) => portalItem(session, item, subscription.currency)));
  // The renewal as it will be finalized (the pending changes, the discount, the taxes): what it will bill.
  const renewal = renewalBills(subscription) ? (await upcomingInvoices(await getDb(), session.ctx, found, {})).renewal.invoice : null;
  const pendingChanges = await Promise.all(
    subscription.pendingChanges.map(async (change): Promise<PortalPendingChange> => {
      const request = await getChangeRequest({ ctx: session.ctx, input: { subscriptionId: subscription.id, id: change.change_request } });
      return {
        id: request.id,
        effectiveAt: (request.effectiveAt ?? subscription.currentPeriodEnd).toISOString(),
        steps: await stepLabels(session, request.steps, request.currency),
        nextInvoiceAmountAtom: request.nextInvoiceTotalAtom ?? request.nextInvoiceAmountAtom,
        cancellable: request.metadata.source === "portal",
      };
    }),
  );
  return {
    id: subscription.id,
    status: subscription.status,
    currency: subscription.currency,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
    defaultPaymentMethod: subscription.defaultPaymentMethod,
    items,
    nextInvoice: renewal ? { date: subscription.currentPeriodEnd.toISOString(), amountAtom: renewal.totalAmountAtom } : null,
    pendingChanges,
  };
}

/** The customer's subscriptions, newest first (the first 100: a customer has few). */
export async function portalSubscriptions(session: PortalSession): Promise<PortalSubscription[]> {
  const page = await listSubscriptions({ ctx: session.ctx, input: { customer: session.customerId, limit: 100, offset: 0 } });
  return Promise.all(page.items.map((found) => portalSubscription(session, found)));
}

export type PortalInvoice = {
  id: string;
  number: string;
  status: string;
  totalAtom: number;
  dueAtom: number;
  currency: string;
  issued: string;
  hasPdf: boolean;
  /** An open invoice's hosted page, where the customer pays it. */
  payUrl: string | null;
};

/** The customer's finalized invoices, newest first (the first 100). */
export async function portalInvoices(session: PortalSession): Promise<PortalInvoice[]> {
  const page = await listInvoices({ ctx: session.ctx, input: { customer: session.customerId, limit: 100, offset: 0 } });
  return page.items
    .filter(({ invoice }) => invoice.status !== "draft")
    .map(({ invoice }) => ({
      id: invoice.id,
      number: invoice.number ?? invoice.id,
      status: invoice.status,
      totalAtom: invoice.totalAmountAtom,
      dueAtom: invoice.dueAmountAtom,
      currency: invoice.currency,
      issued: (invoice.finalizedAt ?? invoice.created).toISOString(),
      hasPdf: invoice.document !== null,
      payUrl: invoice.status === "open" && invoice.hostedToken ? hostedInvoiceUrl(invoice.hostedToken) : null,
    }));
}

/** The PDF of one of the customer's invoices (the bytes `GET /api/invoices/{id}/pdf` answers). */
export async function portalInvoicePdf(session: PortalSession, id: string): Promise<{ bytes: Buffer; number: string }> {
  if (!(await portalSettings(session)).features.invoice_history.enabled) throw notFound("invoice", id);
  const found = await ownInvoice(session, id);
  return { bytes: await invoicePdf(found), number: found.invoice.number ?? found.invoice.id };
}

/** "February 28, 2027": a date as the portal prints it (UTC). */
export function portalDate(at: Date | string): string {
  return dateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(new Date(at));
}

/**
 * The one sentence a subscription's card reads for its state (docs/portal-and-entitlements.md):
 * a cancel at the period end is said once, with its date, and nothing on the card says the
 * subscription renews, changes or is cancelled already.
 */
export function subscriptionSentence(sub: Pick<PortalSubscription, "status" | "cancelAtPeriodEnd" | "currentPeriodEnd">): string {
  const end = portalDate(sub.currentPeriodEnd);
  if (sub.status === "cancelled") return "Your subscription is cancelled.";
  if (sub.cancelAtPeriodEnd) return `Your subscription ends on ${end}; it will not renew.`;
  switch (sub.status) {
    case "trialing":
      return `Your trial runs until ${end}.`;
    case "past_due":
      return "A payment is overdue: your subscription continues once it is paid.";
    case "paused":
      return "Your subscription is paused.";
    default:
      return `Your subscription is active and renews on ${end}.`;
  }
}

/** The session's customer's credit left per currency, from grants that would pay an invoice finalized now. */
export async function portalRemainingCredit(session: PortalSession): Promise<{ currency: string; remainingAtom: number }[]> {
  return remainingCreditByCurrency({ ctx: session.ctx, customerId: session.customerId });
}
