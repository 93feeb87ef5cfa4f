import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { checkoutSessions, customers, invoices, paymentIntents, processorSetups, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { applyPaymentIntentOutcome } from "@/lib/invoices/payment-hooks";
import { lockIntent } from "@/lib/payments/core";
import { intentByReference, onSessionProcessor, prepareOnSessionPayment, settleOnSessionPayment } from "@/lib/payments/on-session";
import type { PaymentIntentRow } from "@/lib/payments/serialize";
import { cancelPaymentIntent, createPaymentIntent, getPaymentIntent } from "@/lib/payments/service";
import { saveMethodOfCheckout, settleSetup, setupProcessor, startSetup } from "@/lib/payment-methods/setup";
import type { ProcessorSettled } from "@/lib/payments/succeeded-hooks";
import { createSubscription } from "@/lib/subscriptions/service";
import type { SubscriptionRow } from "@/lib/subscriptions/serialize";
import { accountClock } from "@/lib/time";
import { getDb } from "@/db/client";
import { withSessionClaim } from "./claim";
import { assertPayable, assertStillOffered, findSession, markComplete, payingCustomer, tolerateConflict } from "./complete";

/*
 * A checkout paid in the browser with the account's Stripe (docs/payments.md, "The hosted pages
 * with Stripe"): the page collects the card with the Payment Element; the customer's Pay makes our
 * payment intent and Stripe's (startCheckoutPayment); Stripe.js confirms it. The session completes
 * only when Stripe says the payment succeeded: its verified webhook or the retrieve on the return
 * URL (settleCheckoutReturn), both applied under the intent's lock.
 *
 * - Payment mode completes in the intent's transaction (completeCheckoutFromPayment, the intent's
 *   success hook), so once.
 * - Subscription mode with something due now pays the first invoice's amount the same way, the
 *   card always saved (`setup_future_usage: off_session`). The subscription is created only once
 *   that payment succeeded (startSessionSubscription): Stripe Billing creates it `incomplete` at
 *   Pay, but this service has no such status, and a subscription that exists before it is paid
 *   would renew, be dunned or be provisioned by a merchant for a customer who walked away. Once
 *   the intent succeeded, the saved card becomes our `pm_…`, then the subscription is created with
 *   it as its default payment method, its first invoice paid by that intent, and the session
 *   completed, under the session's claim: the webhook's job and the return URL both get there, the
 *   second finds the session complete; a retry after a crash finds the subscription the first
 *   attempt made (metadata `checkout_session`) instead of making another.
 * - Subscription mode with nothing due now (a trial, or a first invoice of 0) collects the card
 *   with a setup (Stripe's SetupIntent, as Stripe Checkout does; startCheckoutSetup), remembered on
 *   the session; once Stripe says it succeeded (settleSetup, from the webhook or the return), the
 *   trialing subscription starts with that method as its default, the same way, once.
 *
 * A decline or a failed 3-D Secure leaves the session open with nothing owed and nothing running.
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
 * Whether Pay collects a payment now: payment mode, or a subscription without a trial whose first
 * invoice is not 0. Otherwise (a trial, nothing due) the card is collected with a setup.
 */
function paysNow(session: { mode: "payment" | "subscription"; trialPeriodDays: number | null; amountTotalAtom: number }): boolean {
  return session.mode === "payment" || (session.trialPeriodDays === null && session.amountTotalAtom > 0);
}

/** What the page's Stripe.js confirms: a payment (confirmPayment) or a setup (confirmSetup). */
export type CheckoutCollection = { kind: "payment" | "setup"; clientSecret: string };

/** The customer's Pay on a Stripe-connected page: a payment, or for a subscription with nothing due now, a setup. */
export async function startCheckoutCollection({ input }: { input: { id: string; email?: string; correlationId: string } }): Promise<CheckoutCollection> {
  const { session } = await findSession(input.id);
  if (paysNow(session)) return { kind: "payment", clientSecret: (await startCheckoutPayment({ input })).clientSecret };
  return { kind: "setup", clientSecret: (await startCheckoutSetup({ input })).clientSecret };
}

/**
 * The customer's Pay on a Stripe-connected checkout page (payment mode, or subscription mode with a
 * first invoice to pay): the paying customer (by
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
    // A subscription's card is always saved: its renewals charge it off-session.
    setupFutureUsage = session.mode === "subscription" ? "off_session" : (session.setupFutureUsage ?? undefined);
    assertPayable(session, base.now());
    if (!paysNow(session)) {
      throw new ServiceError("conflict", `Checkout session '${session.id}' has nothing to pay now (a trial): its card is saved with a setup instead.`);
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
  await completeSubscriptionFromPayment(customerCtx, settled);
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
  // A subscription's session is completed after this transaction (startSessionSubscription), whose
  // claim holds the session's row: not locked here, so this transaction never waits for that one.
  const [mode] = await tx.select({ mode: checkoutSessions.mode }).from(checkoutSessions).where(and(eq(checkoutSessions.accountId, ctx.accountId), eq(checkoutSessions.id, id)));
  if (mode?.mode !== "payment") return;
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

/**
 * The customer's Pay on a subscription checkout with nothing due now (a trial): the paying customer
 * and a setup at the processor for them (lib/payment-methods/setup.ts, startSetup: Stripe's
 * SetupIntent, `usage: off_session`), remembered on the session (a second Pay replaces it), whose
 * client secret Stripe.js's confirmSetup confirms. Nothing starts here.
 */
export async function startCheckoutSetup({ input }: { input: { id: string; email?: string; correlationId: string } }): Promise<{ clientSecret: string; setupIntent: string }> {
  const { ctx: base } = await sessionContext(input.id, input.correlationId);
  if (!(await setupProcessor(base.accountId))) {
    throw new ServiceError("conflict", "This checkout takes no card in the browser: its account has no payment processor connected that saves cards.");
  }
  const { ctx, customerId } = await withSessionClaim(input.id, async () => {
    const session = (await findSession(input.id)).session;
    assertPayable(session, base.now());
    if (paysNow(session)) throw new ServiceError("conflict", `Checkout session '${session.id}' has an amount due now: it is paid, not set up.`);
    await assertStillOffered(session);
    const customer = await payingCustomer(base, session, input.email);
    return { ctx: { ...base, actor: { type: "customer", id: customer.id } } as ServiceContext, customerId: customer.id };
  });
  // The processor is asked with nothing of ours locked; the session then remembers the setup.
  const started = await startSetup(ctx, customerId);
  await withSessionClaim(input.id, (inClaim) =>
    inClaim((tx) =>
      tx
        .update(checkoutSessions)
        .set({ setupReference: started.reference, updated: ctx.now() })
        .where(and(eq(checkoutSessions.id, input.id), eq(checkoutSessions.status, "open"))),
    ),
  );
  return { clientSecret: started.clientSecret, setupIntent: started.reference };
}

/**
 * The return URL of a setup (`?setup_intent=seti_…`): the setup re-read at Stripe and, when it
 * succeeded, the method recorded and the subscription started (once, whichever of this and the
 * webhook is second). An id that is not this session's setup changes nothing.
 */
export async function settleCheckoutSetupReturn(input: { id: string; reference: string }): Promise<void> {
  const { found, ctx } = await sessionContext(input.id, null);
  if (found.session.setupReference === null || found.session.setupReference !== input.reference) return;
  const db = await getDb();
  const [setup] = await db
    .select({ customerId: processorSetups.customerId })
    .from(processorSetups)
    .where(and(eq(processorSetups.accountId, ctx.accountId), eq(processorSetups.reference, input.reference)));
  if (!setup) return;
  const customerCtx: ServiceContext = { ...ctx, actor: { type: "customer", id: setup.customerId } };
  const settled = await settleSetup(customerCtx, { reference: input.reference, customerId: setup.customerId });
  if (settled.status !== "succeeded") return;
  await startSessionSubscription(customerCtx, input.id, { customerId: setup.customerId, paymentMethodId: settled.paymentMethod.id, intent: null, setupReference: input.reference });
}

/**
 * After the processor's word was applied (lib/payments/succeeded-hooks.ts, wired at start-up;
 * the webhook's job calls it): a subscription checkout's payment or setup that succeeded starts
 * the session's subscription, once.
 */
export async function checkoutAfterProcessorSettled(ctx: ServiceContext, settled: ProcessorSettled): Promise<void> {
  if (settled.kind === "payment_intent") {
    if (settled.intent.customerId === null) return;
    await completeSubscriptionFromPayment({ ...ctx, actor: { type: "customer", id: settled.intent.customerId } }, settled.intent);
    return;
  }
  const db = await getDb();
  const [session] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.accountId, ctx.accountId), eq(checkoutSessions.setupReference, settled.reference), eq(checkoutSessions.status, "open"), isNull(checkoutSessions.deletedAt)));
  if (!session) return;
  const customerCtx: ServiceContext = { ...ctx, actor: { type: "customer", id: settled.customerId } };
  await startSessionSubscription(customerCtx, session.id, { customerId: settled.customerId, paymentMethodId: settled.paymentMethodId, intent: null, setupReference: settled.reference });
}

/**
 * A subscription session's payment intent that succeeded: its card saved as our `pm_…` (Stripe's
 * attach; once), then the subscription started with it. Anything else changes nothing.
 */
async function completeSubscriptionFromPayment(ctx: ServiceContext, intent: PaymentIntentRow): Promise<void> {
  const id = intent.metadata.checkout_session;
  if (!id || intent.status !== "succeeded" || intent.customerId === null) return;
  const [session] = await (await getDb())
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.accountId, ctx.accountId), eq(checkoutSessions.id, id), isNull(checkoutSessions.deletedAt)));
  if (!session || session.mode !== "subscription" || session.status !== "open" || session.paymentIntentId !== intent.id) return;
  const method = await saveMethodOfCheckout(ctx, intent);
  // Not saved (the intent was not paid through the connected network processor): nothing to start with.
  if (!method) return;
  await startSessionSubscription(ctx, id, { customerId: intent.customerId, paymentMethodId: method.id, intent, setupReference: null });
}

/** The subscription an earlier attempt of this session's completion made (a crash before the session completed), if any. */
async function subscriptionOfSession(ctx: ServiceContext, sessionId: string, customerId: string): Promise<SubscriptionRow | null> {
  const [row] = await (await getDb())
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.accountId, ctx.accountId),
        eq(subscriptions.customerId, customerId),
        sql`${subscriptions.metadata} ->> 'checkout_session' = ${sessionId}`,
        ne(subscriptions.status, "cancelled"),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Starts the session's subscription and completes the session, under the session's claim (a second
 * arrival waits for it, then finds the session complete): the subscription with the
 * saved method as its default (customer.subscription.created), its first invoice paid by the
 * intent that already succeeded (invoice.paid), then checkout.session.completed. With a trial there
 * is no invoice and no intent.
 */
async function startSessionSubscription(
  ctx: ServiceContext,
  sessionId: string,
  paid: { customerId: string; paymentMethodId: string; intent: PaymentIntentRow | null; setupReference: string | null },
): Promise<void> {
  await withSessionClaim(sessionId, async (inClaim) => {
    const session = (await findSession(sessionId)).session;
    if (session.status !== "open" || session.mode !== "subscription") return;
    // Only what this session paid with (its current intent or setup) starts it.
    if (paid.intent ? session.paymentIntentId !== paid.intent.id : session.setupReference !== paid.setupReference) return;
    const subscription =
      (await subscriptionOfSession(ctx, session.id, paid.customerId)) ??
      (
        await createSubscription({
          ctx,
          input: {
            customer: paid.customerId,
            items: session.lineItems.map((line) => ({ price: line.price, quantity: line.quantity })),
            trial_period_days: session.trialPeriodDays ?? undefined,
            default_payment_method: paid.paymentMethodId,
            metadata: { checkout_session: session.id },
          },
        })
      ).subscription;
    const invoiceId = subscription.latestInvoiceId;
    if (paid.intent && invoiceId !== null) await payFirstInvoice(ctx, invoiceId, paid.intent.id);
    const [customer] = await (await getDb()).select({ email: customers.email }).from(customers).where(eq(customers.id, paid.customerId));
    await markComplete(inClaim, ctx, session.id, {
      customerId: paid.customerId,
      email: customer?.email ?? session.customerEmail ?? "",
      paymentIntentId: paid.intent?.id ?? null,
      subscriptionId: subscription.id,
      invoiceId,
    });
  }, { wait: true });
}

/**
 * The first invoice paid by the checkout's intent, which succeeded before the invoice existed (the
 * subscription is made once it is paid): the intent linked to the invoice and its received amount
 * applied as any invoice payment's outcome (invoice.paid), in one transaction holding the intent's
 * lock. Already paid (a retry): nothing. An invoice due more than was paid (the customer's balance
 * changed between Pay and the payment) stays open for what is left, as a partial payment does.
 */
async function payFirstInvoice(ctx: ServiceContext, invoiceId: string, intentId: string): Promise<void> {
  await withChangeTransaction(async (tx) => {
    const intent = await lockIntent(tx, ctx.accountId, intentId);
    if (intent.invoiceId !== null && intent.invoiceId !== invoiceId) {
      throw new ServiceError("conflict", `Payment intent '${intentId}' already pays invoice '${intent.invoiceId}'.`);
    }
    const [invoice] = await tx.select({ status: invoices.status }).from(invoices).where(and(eq(invoices.accountId, ctx.accountId), eq(invoices.id, invoiceId)));
    if (!invoice || intent.invoiceId === invoiceId || invoice.status !== "open") return;
    await tx.update(paymentIntents).set({ invoiceId, updated: ctx.now() }).where(eq(paymentIntents.id, intentId));
    await applyPaymentIntentOutcome(tx, ctx, invoiceId, { kind: "succeeded", receivedAtom: intent.amountReceivedAtom });
  });
}
