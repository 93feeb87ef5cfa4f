import { and, eq, isNull } from "drizzle-orm";
import { checkoutSessions, customers } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { intentByReference, onSessionProcessor, prepareOnSessionPayment, settleOnSessionPayment } from "@/lib/payments/on-session";
import type { PaymentIntentRow } from "@/lib/payments/serialize";
import { cancelPaymentIntent, createPaymentIntent, getPaymentIntent } from "@/lib/payments/service";
import { saveMethodOfCheckout } from "@/lib/payment-methods/setup";
import { accountClock } from "@/lib/time";
import { getDb } from "@/db/client";
import { withSessionClaim } from "./claim";
import { assertPayable, assertStillOffered, findSession, markComplete, payingCustomer, tolerateConflict } from "./complete";

/*
 * A payment-mode checkout paid in the browser with the account's Stripe (docs/payments.md, "The
 * hosted pages with Stripe"): the page collects the card with the Payment Element; the customer's
 * Pay makes our payment intent and Stripe's (startCheckoutPayment); Stripe.js confirms it. The
 * session completes only when Stripe says the payment succeeded: its verified webhook or the
 * retrieve on the return URL (settleCheckoutReturn), both applied under the intent's lock, so the
 * session completes once (completeCheckoutFromPayment, the intent's success hook).
 */

export type CheckoutPaymentStart = { clientSecret: string; paymentIntent: string };

async function sessionContext(id: string, correlationId: string | null) {
  const found = await findSession(id);
  const ctx: ServiceContext = {
    accountId: found.session.accountId,
    livemode: found.livemode,
    actor: { type: "customer", id: null },
    correlationId,
    now: accountClock(found.clockOffsetMs),
  };
  return { found, ctx };
}

/** Whether the intent can still be paid in the browser as it is: same customer, waiting for a method, nothing in flight. */
function reusable(intent: PaymentIntentRow, customerId: string): boolean {
  return intent.customerId === customerId && !intent.chargeInFlight && (intent.status === "requires_payment_method" || intent.status === "requires_action");
}

/**
 * The customer's Pay on a Stripe-connected checkout page (payment mode): the paying customer (by
 * the session's customer or the email), our payment intent for the total (one per session and
 * customer: a second Pay, after a decline or a reload, reuses it) and Stripe's, whose client
 * secret Stripe.js confirms. Nothing completes here.
 */
export async function startCheckoutPayment({ input }: { input: { id: string; email?: string; correlationId: string } }): Promise<CheckoutPaymentStart> {
  const { ctx: base } = await sessionContext(input.id, input.correlationId);
  if (!(await onSessionProcessor(base.accountId))) {
    throw new ServiceError("conflict", "This checkout takes no card payments in the browser: its account has no payment processor connected.");
  }
  let stale: string | null = null;
  let setupFutureUsage: "off_session" | undefined;
  const { intentId, ctx } = await withSessionClaim(input.id, async (inClaim) => {
    const session = (await findSession(input.id)).session;
    setupFutureUsage = session.setupFutureUsage ?? undefined;
    assertPayable(session, base.now());
    if (session.mode !== "payment") {
      throw new ServiceError("conflict", `Checkout session '${session.id}' is in ${session.mode} mode; only payment-mode checkouts are paid through the account's processor so far.`);
    }
    await assertStillOffered(session);
    const customer = await payingCustomer(base, session, input.email);
    const ctx: ServiceContext = { ...base, actor: { type: "customer", id: customer.id } };
    if (session.paymentIntentId !== null) {
      const current = await getPaymentIntent({ ctx, input: { id: session.paymentIntentId } });
      if (reusable(current, customer.id)) return { intentId: current.id, ctx };
      // Another email since: that intent is canceled (after the claim), a new one made for this customer.
      if (current.status !== "succeeded" && current.status !== "canceled") stale = current.id;
    }
    const intentId = await inClaim(async (tx) => {
      const intent = await createPaymentIntent({
        ctx,
        tx,
        input: { amount_atom: session.amountTotalAtom, currency: session.currency, customer: customer.id, metadata: { checkout_session: session.id } },
      });
      // As Stripe's open session names its payment intent.
      await tx.update(checkoutSessions).set({ paymentIntentId: intent.id, updated: ctx.now() }).where(eq(checkoutSessions.id, session.id));
      return intent.id;
    });
    return { intentId, ctx };
  });
  const replaced = stale as string | null;
  if (replaced !== null) await tolerateConflict(() => cancelPaymentIntent({ ctx, input: { id: replaced } }));
  // A session that saves its card: Stripe saves the method for the customer when the payment succeeds.
  const prepared = await prepareOnSessionPayment(ctx, intentId, { setupFutureUsage });
  return { clientSecret: prepared.clientSecret, paymentIntent: intentId };
}

/**
 * The return URL (`?payment_intent=pi_…`, Stripe's id): the intent is re-read at Stripe and
 * applied (completing the session when it succeeded), whatever the browser's `redirect_status`
 * says. An id that is not this session's intent's changes nothing.
 */
export async function settleCheckoutReturn(input: { id: string; reference: string }): Promise<void> {
  const { found, ctx } = await sessionContext(input.id, null);
  const intent = await intentByReference(await getDb(), found.session.accountId, input.reference);
  if (!intent || intent.metadata.checkout_session !== input.id) return;
  const customerCtx: ServiceContext = { ...ctx, actor: { type: "customer", id: intent.customerId } };
  const settled = await settleOnSessionPayment(customerCtx, intent.id, input.reference);
  // The card it was paid with, saved for the customer when the session asked (once, whichever of this and the webhook is second).
  await saveMethodOfCheckout(customerCtx, settled);
}

/**
 * The intent's success hook (lib/payments/succeeded-hooks.ts, wired at start-up): a payment-mode
 * session's intent that succeeded at the processor completes the session, in the intent's
 * transaction (the change that made the intent succeed, so exactly once). A session no longer open
 * (completed by an earlier intent) is left as it is. A session past its expiry still completes:
 * the customer has paid.
 */
export async function completeCheckoutFromPayment(tx: ChangeTransaction, ctx: ServiceContext, intent: PaymentIntentRow): Promise<void> {
  const id = intent.metadata.checkout_session;
  if (!id || intent.customerId === null) return;
  const [session] = await tx
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.accountId, ctx.accountId), eq(checkoutSessions.id, id), isNull(checkoutSessions.deletedAt)))
    .for("update");
  if (!session || session.status !== "open" || session.mode !== "payment") return;
  const [customer] = await tx.select({ email: customers.email }).from(customers).where(eq(customers.id, intent.customerId));
  const customerCtx: ServiceContext = { ...ctx, actor: { type: "customer", id: intent.customerId } };
  await markComplete((change) => change(tx), customerCtx, id, {
    customerId: intent.customerId,
    email: customer?.email ?? session.customerEmail ?? "",
    paymentIntentId: intent.id,
    subscriptionId: null,
    invoiceId: null,
  });
}
