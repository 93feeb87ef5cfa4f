import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, checkoutSessions, customers, prices, products } from "@/db/schema";
import { accountClock } from "@/lib/time";
import type { ServiceContext } from "@/lib/context";
import { createCustomer } from "@/lib/customers/service";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { getInvoice } from "@/lib/invoices/service";
import { payInvoice, voidInvoice } from "@/lib/invoices/settle";
import { checkSandboxPaymentMethod, DECLINE_MESSAGE, type SandboxPaymentMethod } from "@/lib/payments/processors/sandbox/methods";
import { cancelPaymentIntent, createPaymentIntent, getPaymentIntent } from "@/lib/payments/service";
import { one } from "@/lib/rows";
import { cancelSubscription, createSubscription } from "@/lib/subscriptions/service";
import { withSessionClaim, type InClaim } from "./claim";
import { assertOpen, emitSessionEvent, lockSession } from "./service";
import type { CheckoutSessionRow } from "./serialize";

export const AUTHENTICATION_MESSAGE =
  "This payment method needs an extra authentication step (3-D Secure), which the sandbox checkout page does not simulate; nothing was charged. Choose another payment method.";

export type CompletionInput = {
  id: string;
  email?: string;
  paymentMethod: string;
  /** The request's X-Correlation-Id, else its request id: every event of the completion carries it. */
  correlationId: string;
  /** The API request completing the session, stamped on its events. */
  requestId?: string;
};

export type CompletionResult = { session: CheckoutSessionRow; livemode: boolean; lastPaymentError: string | null };

type Attempt =
  | { kind: "complete"; session: CheckoutSessionRow }
  | { kind: "failed"; message: string; ctx: ServiceContext; cancelIntent: string | null };

/** A session of any account, by its id alone (the unguessable id is the page's capability), with its account's clock. */
export async function findSession(id: string) {
  const db = await getDb();
  const [row] = await db
    .select({ session: checkoutSessions, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs })
    .from(checkoutSessions)
    .innerJoin(accounts, eq(accounts.id, checkoutSessions.accountId))
    .where(and(eq(checkoutSessions.id, id), isNull(checkoutSessions.deletedAt)));
  if (!row) throw notFound("checkout session", id);
  return row;
}

/**
 * The page offers card-like methods only: `pm_sandbox_partially_funded` models a transfer
 * arriving in parts, which a checkout that must be paid in full cannot take.
 */
function checkoutPaymentMethod(livemode: boolean, method: string): SandboxPaymentMethod {
  const checked = checkSandboxPaymentMethod(livemode, method);
  if (checked === "pm_sandbox_partially_funded") {
    throw validationFailed([
      { field: "payment_method", message: "pm_sandbox_partially_funded models a transfer paid in parts; a checkout is paid in full at once." },
    ]);
  }
  return checked;
}

/** Open and not past its expiry on the account's clock (the clock may not have come round to expire it yet). */
export function assertPayable(session: CheckoutSessionRow, now: Date): void {
  assertOpen(session, "completed");
  if (session.expiresAt.getTime() <= now.getTime()) {
    throw new ServiceError("conflict", `Checkout session '${session.id}' expired at ${session.expiresAt.toISOString()}.`);
  }
}

/** Prices archived (or their products) since the session was made are no longer sold: 409, nothing done. */
export async function assertStillOffered(session: CheckoutSessionRow): Promise<void> {
  const db = await getDb();
  const ids = session.lineItems.map((line) => line.price);
  const rows = await db
    .select({ id: prices.id, active: prices.active, deletedAt: prices.deletedAt, productActive: products.active, productDeletedAt: products.deletedAt })
    .from(prices)
    .innerJoin(products, eq(products.id, prices.productId))
    .where(inArray(prices.id, ids));
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    if (!row || !row.active || row.deletedAt !== null || !row.productActive || row.productDeletedAt !== null) {
      throw new ServiceError("conflict", `Price '${id}' of checkout session '${session.id}' is no longer offered; it cannot be completed.`);
    }
  }
}

/** The paying customer: the one the session names, else the newest live customer with the email, else a new one. */
export async function payingCustomer(ctx: ServiceContext, session: CheckoutSessionRow, bodyEmail: string | undefined) {
  const db = await getDb();
  if (session.customerId !== null) {
    const [customer] = await db
      .select({ id: customers.id, email: customers.email })
      .from(customers)
      .where(and(eq(customers.id, session.customerId), isNull(customers.deletedAt)));
    if (!customer) throw new ServiceError("conflict", `Customer '${session.customerId}' of checkout session '${session.id}' was deleted.`);
    return customer;
  }
  const email = session.customerEmail ?? bodyEmail;
  if (email === undefined) {
    throw new ServiceError("bad_request", "Missing required field: email.", { errors: [{ field: "email", message: "Required." }] });
  }
  const [found] = await db
    .select({ id: customers.id, email: customers.email })
    .from(customers)
    .where(and(eq(customers.accountId, session.accountId), eq(customers.email, email), isNull(customers.deletedAt)))
    .orderBy(desc(customers.created), desc(customers.id))
    .limit(1);
  if (found) return found;
  // customer.created is caused by the customer, who had no id before it.
  const created = await createCustomer({ ctx, input: { email } });
  return { id: created.id, email: created.email };
}

export async function markComplete(
  inClaim: InClaim,
  ctx: ServiceContext,
  id: string,
  outcome: { customerId: string; email: string; paymentIntentId: string | null; subscriptionId: string | null; invoiceId: string | null },
): Promise<CheckoutSessionRow> {
  return inClaim(async (tx) => {
    const before = await lockSession(tx, ctx.accountId, id);
    assertOpen(before, "completed");
    const now = ctx.now();
    const after = one(await tx
      .update(checkoutSessions)
      .set({
        status: "complete",
        completedAt: now,
        customerId: outcome.customerId,
        customerEmail: before.customerEmail ?? outcome.email,
        paymentIntentId: outcome.paymentIntentId,
        subscriptionId: outcome.subscriptionId,
        invoiceId: outcome.invoiceId,
        updated: now,
      })
      .where(eq(checkoutSessions.id, id))
      .returning());
    await emitSessionEvent(tx, ctx, "checkout.session.completed", after, before);
    return after;
  });
}

/**
 * Payment mode: one payment intent for the total, linked to the customer and confirmed with the
 * method, in the same transaction that completes the session, so a payment never succeeds
 * without its session completing. A failed attempt's intent is canceled afterwards.
 */
async function payOnce(inClaim: InClaim, ctx: ServiceContext, session: CheckoutSessionRow, customer: { id: string; email: string }, method: string): Promise<Attempt> {
  return inClaim(async (tx) => {
    const intent = await createPaymentIntent({
      ctx,
      tx,
      input: {
        amount_atom: session.amountTotalAtom,
        currency: session.currency,
        customer: customer.id,
        payment_method: method,
        confirm: true,
        metadata: { checkout_session: session.id },
      },
    });
    if (intent.status !== "succeeded") {
      const message = intent.status === "requires_action" ? AUTHENTICATION_MESSAGE : (intent.lastPaymentError ?? DECLINE_MESSAGE);
      return { kind: "failed", message, ctx, cancelIntent: intent.id } as const;
    }
    const completed = await markComplete((change) => change(tx), ctx, session.id, {
      customerId: customer.id,
      email: customer.email,
      paymentIntentId: intent.id,
      subscriptionId: null,
      invoiceId: null,
    });
    return { kind: "complete", session: completed } as const;
  });
}

/**
 * Subscription mode: the subscription (default payment method = the method), then its first
 * invoice paid with the method — unless it starts with a trial (nothing to pay). A first payment
 * that does not succeed leaves nothing owed and nothing running: its intent is canceled, the
 * invoice voided and the subscription cancelled, and the customer can try again (a new attempt
 * starts a new subscription). Merchants provision on `checkout.session.completed`.
 */
async function subscribe(inClaim: InClaim, ctx: ServiceContext, session: CheckoutSessionRow, customer: { id: string; email: string }, method: string): Promise<Attempt> {
  const { subscription } = await createSubscription({
    ctx,
    input: {
      customer: customer.id,
      items: session.lineItems.map((line) => ({ price: line.price, quantity: line.quantity })),
      trial_period_days: session.trialPeriodDays ?? undefined,
      default_payment_method: method,
      metadata: { checkout_session: session.id },
    },
  });
  const invoiceId = subscription.latestInvoiceId;
  let paymentIntentId: string | null = null;
  try {
    if (invoiceId !== null) {
      let invoice = await getInvoice({ ctx, input: { id: invoiceId } });
      // A first invoice discounted to 0 is paid at finalization: nothing to collect.
      if (invoice.invoice.status === "open") invoice = await payInvoice({ ctx, input: { id: invoiceId, payment: { payment_method: method }, onSession: true } });
      paymentIntentId = invoice.paymentIntent ?? null;
      if (invoice.invoice.status !== "paid") {
        const intent = paymentIntentId ? await getPaymentIntent({ ctx, input: { id: paymentIntentId } }) : null;
        const message = intent?.status === "requires_action" ? AUTHENTICATION_MESSAGE : (intent?.lastPaymentError ?? DECLINE_MESSAGE);
        await undoSubscription(ctx, subscription.id, invoiceId, paymentIntentId);
        return { kind: "failed", message, ctx, cancelIntent: null };
      }
    }
  } catch (error) {
    await undoSubscription(ctx, subscription.id, invoiceId, paymentIntentId);
    throw error;
  }
  const completed = await markComplete(inClaim, ctx, session.id, {
    customerId: customer.id,
    email: customer.email,
    paymentIntentId,
    subscriptionId: subscription.id,
    invoiceId,
  });
  return { kind: "complete", session: completed };
}

/** Ignores "already in that state" conflicts: the undo only makes sure nothing is left owing or running. */
export async function tolerateConflict(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if (!(error instanceof ServiceError && error.category === "conflict")) throw error;
  }
}

async function undoSubscription(ctx: ServiceContext, subscriptionId: string, invoiceId: string | null, paymentIntentId: string | null): Promise<void> {
  if (paymentIntentId !== null) await tolerateConflict(() => cancelPaymentIntent({ ctx, input: { id: paymentIntentId } }));
  if (invoiceId !== null) await tolerateConflict(() => voidInvoice({ ctx, input: { id: invoiceId } }));
  await tolerateConflict(() => cancelSubscription({ ctx, input: { id: subscriptionId, options: {} } }));
}

/**
 * The hosted page's Pay button (public: the session id is the capability, as Stripe's checkout
 * URL is). Finds or creates the customer, pays (payment mode) or subscribes (subscription mode),
 * and completes the session — or, when the payment fails, leaves it open and says why. Every
 * event carries actor `customer` (with the customer's id once known).
 */
export async function completeCheckoutSession({ input }: { input: CompletionInput }): Promise<CompletionResult> {
  const found = await findSession(input.id);
  const base: ServiceContext = {
    accountId: found.session.accountId,
    livemode: found.livemode,
    actor: { type: "customer", id: null },
    correlationId: input.correlationId,
    ...(input.requestId ? { requestId: input.requestId } : {}),
    now: accountClock(found.clockOffsetMs),
  };
  // Live accounts (they pay on the hosted page through their processor) and unknown methods are
  // refused before anything is written.
  const method = checkoutPaymentMethod(base.livemode, input.paymentMethod);

  const attempt = await withSessionClaim<Attempt>(input.id, async (inClaim) => {
    // Read again under the claim: another completion may have finished meanwhile.
    const session = (await findSession(input.id)).session;
    assertPayable(session, base.now());
    await assertStillOffered(session);
    // A trial charges nothing, but the card is still checked (as Stripe's setup does): a declined one is refused.
    if (session.mode === "subscription" && session.trialPeriodDays !== null && method === "pm_sandbox_declined") {
      return { kind: "failed", message: DECLINE_MESSAGE, ctx: base, cancelIntent: null };
    }
    const customer = await payingCustomer(base, session, input.email);
    const ctx: ServiceContext = { ...base, actor: { type: "customer", id: customer.id } };
    return session.mode === "payment" ? payOnce(inClaim, ctx, session, customer, method) : subscribe(inClaim, ctx, session, customer, method);
  });

  if (attempt.kind === "complete") return { session: attempt.session, livemode: base.livemode, lastPaymentError: null };
  // Canceled once its transaction committed: a failed attempt leaves no intent that could still collect.
  const cancelIntent = attempt.cancelIntent;
  if (cancelIntent !== null) await tolerateConflict(() => cancelPaymentIntent({ ctx: attempt.ctx, input: { id: cancelIntent } }));
  return { session: (await findSession(input.id)).session, livemode: base.livemode, lastPaymentError: attempt.message };
}
