import type { checkoutSessions } from "@/db/schema";
import { publicBaseUrl } from "@/lib/config";
import { SESSION_ID_TEMPLATE, type CheckoutCompletionObject, type CheckoutSessionObject } from "./schema";

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

/** The hosted checkout page of a session. */
export function checkoutPageUrl(id: string): string {
  return `${publicBaseUrl()}/checkout/${id}`;
}

/** Where the page sends the browser after payment: Stripe's `{CHECKOUT_SESSION_ID}` template filled in. */
export function successRedirectUrl(successUrl: string, id: string): string {
  return successUrl.split(SESSION_ID_TEMPLATE).join(id);
}

export function paymentStatusOf(row: Pick<CheckoutSessionRow, "status" | "mode" | "invoiceId">): CheckoutSessionObject["payment_status"] {
  if (row.status !== "complete") return "unpaid";
  // A subscription that starts with a trial has nothing to pay yet.
  return row.mode === "subscription" && row.invoiceId === null ? "no_payment_required" : "paid";
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The session as the API shows it, and as event data records it. */
export function serializeCheckoutSession(row: CheckoutSessionRow, livemode: boolean): CheckoutSessionObject {
  return {
    id: row.id,
    object: "checkout_session",
    mode: row.mode,
    status: row.status,
    payment_status: paymentStatusOf(row),
    url: checkoutPageUrl(row.id),
    success_url: row.successUrl,
    cancel_url: row.cancelUrl,
    customer: row.customerId,
    customer_email: row.customerEmail,
    currency: row.currency,
    line_items: row.lineItems.map((item) => ({
      price: item.price,
      quantity: item.quantity,
      description: item.description,
      unit_amount_atom: item.unit_amount_atom,
      amount_atom: item.amount_atom,
    })),
    amount_total_atom: row.amountTotalAtom,
    subscription_data: row.mode === "subscription" ? { trial_period_days: row.trialPeriodDays } : null,
    payment_intent: row.paymentIntentId,
    subscription: row.subscriptionId,
    invoice: row.invoiceId,
    expires_at: row.expiresAt.toISOString(),
    completed_at: iso(row.completedAt),
    expired_at: iso(row.expiredAt),
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

/** What the page learns from one payment attempt: never the session's merchant-side details. */
export function serializeCompletion(result: { session: CheckoutSessionRow; lastPaymentError: string | null }): CheckoutCompletionObject {
  const { session } = result;
  return {
    object: "checkout_completion",
    checkout_session: session.id,
    status: session.status,
    payment_status: paymentStatusOf(session),
    redirect_url: session.status === "complete" ? successRedirectUrl(session.successUrl, session.id) : null,
    last_payment_error: result.lastPaymentError,
  };
}
