import { and, eq, inArray, isNull, ne, or } from "drizzle-orm";
import { getDb } from "@/db/client";
import { checkoutSessions, customers, paymentMethods, processorCustomers, processorSetups, subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { getCustomer, setDefaultPaymentMethod } from "@/lib/customers/service";
import { notFound, ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { connectedProcessor, processorCustomer } from "@/lib/payments/processors/registry";
import { ProcessorRefusedError, ProcessorUnavailableError, type PaymentProcessor } from "@/lib/payments/processors/types";
import { itemsOf, lockSubscription } from "@/lib/subscriptions/core";
import { recordSubscriptionChange } from "@/lib/subscriptions/record";
import { one } from "@/lib/rows";
import { type PaymentMethodRow } from "./serialize";
import { recordSavedMethod } from "./service";

/*
 * Saving a payment method in the customer's browser through the processor's setup (Stripe's
 * SetupIntent with `usage: off_session`, confirmed by Stripe.js's `confirmSetup`; docs/payments.md,
 * "Saving a card with a SetupIntent"). The server makes the setup for the customer and remembers it
 * (processor_setups); the method is recorded only from the processor's word, its verified
 * `setup_intent.succeeded` webhook or a retrieve on the return URL, and exactly once when both
 * arrive: under the setup row's lock, the second finds it `succeeded` and changes nothing. A setup
 * this service did not make for that customer records nothing.
 */

/** Subscriptions whose default payment method a saved card replaces: those still billed. */
const LIVE_STATUSES = ["trialing", "active", "past_due", "paused"] as const;

export type SetupStart = { reference: string; clientSecret: string; publishableKey: string };

/** The account's connected processor when it saves payment methods in the browser (Stripe), else null. */
export async function setupProcessor(accountId: string): Promise<PaymentProcessor | null> {
  const processor = await connectedProcessor(await getDb(), accountId);
  return processor?.prepareSetup && processor.retrieveSetup ? processor : null;
}

async function atProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} Nothing was saved: try again.`, { retryable: true });
    if (error instanceof ProcessorRefusedError) throw new ServiceError("conflict", error.message);
    throw error;
  }
}

/**
 * A new setup at the processor for the customer (its counterpart there made on first use), for the
 * browser to confirm with the answered client secret. Nothing of ours is locked meanwhile.
 */
export async function startSetup(ctx: ServiceContext, customerId: string): Promise<SetupStart> {
  const processor = await setupProcessor(ctx.accountId);
  if (!processor) throw new ServiceError("conflict", "This account has no payment processor that saves cards in the browser: connect Stripe (PUT /payment-processor).");
  const customer = await getCustomer({ ctx, input: { id: customerId } });
  const db = await getDb();
  const handle = await atProcessor(async () => {
    const reference = await processorCustomer(db, processor, ctx.accountId, customer);
    return processor.prepareSetup!({ customerId: customer.id, processorCustomer: reference });
  });
  await db.insert(processorSetups).values({ accountId: ctx.accountId, processor: processor.name, reference: handle.reference, customerId: customer.id, created: ctx.now() });
  return { reference: handle.reference, clientSecret: handle.clientSecret, publishableKey: processor.clientKey ?? "" };
}

export type SetupOutcome =
  /** Not a setup this service made (for this customer, when one was named): nothing changed. */
  | { status: "unknown" }
  /** Not succeeded at the processor (yet): nothing recorded. */
  | { status: "pending" | "canceled" }
  /** Recorded: by this call (`recorded`), or by an earlier one (the webhook or the return, whichever came first). */
  | { status: "succeeded"; recorded: boolean; paymentMethod: PaymentMethodRow };

/**
 * Brings our record of a setup to what the processor says now: when it succeeded, the saved method
 * becomes our `pm_…` (payment_method.attached), the customer's default (customer.updated) and the
 * default of the customer's live subscriptions (customer.subscription.updated), in one
 * transaction, once. `customerId` (the
 * portal's customer, on the return URL) must be the one the setup was made for: another
 * customer's setup changes nothing.
 */
export async function settleSetup(ctx: ServiceContext, input: { processor?: string; reference: string; customerId?: string }): Promise<SetupOutcome> {
  const db = await getDb();
  const [setup] = await db
    .select()
    .from(processorSetups)
    .where(
      and(
        eq(processorSetups.accountId, ctx.accountId),
        eq(processorSetups.reference, input.reference),
        input.processor ? eq(processorSetups.processor, input.processor) : undefined,
      ),
    );
  if (!setup || (input.customerId !== undefined && setup.customerId !== input.customerId)) return { status: "unknown" };
  if (setup.status === "succeeded") return { status: "succeeded", recorded: false, paymentMethod: await methodRow(setup.paymentMethodId!) };
  const processor = await setupProcessor(ctx.accountId);
  if (!processor || processor.name !== setup.processor) return { status: "pending" };
  const state = await atProcessor(() => processor.retrieveSetup!(setup.reference));
  if (state.status !== "succeeded" || state.method === null) return { status: state.status === "canceled" ? "canceled" : "pending" };
  // The processor's setup must be for the customer's counterpart there: the one we made it for.
  const [counterpart] = await db
    .select({ reference: processorCustomers.reference })
    .from(processorCustomers)
    .where(and(eq(processorCustomers.customerId, setup.customerId), eq(processorCustomers.processor, setup.processor)));
  if (!counterpart || counterpart.reference !== state.processorCustomer) return { status: "unknown" };
  const method = state.method;
  return withChangeTransaction(async (tx) => {
    const [locked] = await tx
      .select()
      .from(processorSetups)
      .where(and(eq(processorSetups.accountId, setup.accountId), eq(processorSetups.processor, setup.processor), eq(processorSetups.reference, setup.reference)))
      .for("update");
    if (locked!.status === "succeeded") return { status: "succeeded", recorded: false, paymentMethod: await methodRow(locked!.paymentMethodId!, tx) };
    const [live] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, setup.customerId), isNull(customers.deletedAt)))
      .for("update");
    if (!live) throw notFound("customer", setup.customerId);
    const paymentMethod = await recordSavedMethod(tx, ctx, setup.customerId, setup.processor, method);
    // As Stripe's portal: the card the customer just saved is their default, and their live subscriptions'.
    await setDefaultPaymentMethod(tx, ctx, setup.customerId, paymentMethod.id);
    await makeDefault(tx, ctx, setup.customerId, paymentMethod.id);
    await tx
      .update(processorSetups)
      .set({ status: "succeeded", paymentMethodId: paymentMethod.id, completedAt: ctx.now() })
      .where(and(eq(processorSetups.accountId, setup.accountId), eq(processorSetups.processor, setup.processor), eq(processorSetups.reference, setup.reference)));
    return { status: "succeeded", recorded: true, paymentMethod };
  });
}

async function methodRow(id: string, executor?: ChangeTransaction): Promise<PaymentMethodRow> {
  const [row] = await (executor ?? (await getDb())).select().from(paymentMethods).where(eq(paymentMethods.id, id));
  return row!;
}

/** The new method as the default of each of the customer's live subscriptions (as the portal's choice of a method sets it), each change its event. */
async function makeDefault(tx: ChangeTransaction, ctx: ServiceContext, customerId: string, methodId: string): Promise<void> {
  const ids = await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.accountId, ctx.accountId),
        eq(subscriptions.customerId, customerId),
        inArray(subscriptions.status, [...LIVE_STATUSES]),
        or(isNull(subscriptions.defaultPaymentMethod), ne(subscriptions.defaultPaymentMethod, methodId)),
      ),
    )
    .orderBy(subscriptions.id);
  for (const { id } of ids) {
    const before = await lockSubscription(tx, ctx.accountId, id);
    const now = ctx.now();
    const subscription = one(await tx.update(subscriptions).set({ defaultPaymentMethod: methodId, updated: now }).where(eq(subscriptions.id, id)).returning());
    await recordSubscriptionChange(tx, ctx, "customer.subscription.updated", { subscription, items: await itemsOf(tx, id) }, before);
  }
}

/**
 * A payment-mode checkout that asked to save its card (`payment_intent_data.setup_future_usage:
 * off_session`; docs/payments.md, "Saving the card at checkout"), or a subscription-mode one (its
 * first invoice's payment always saves the card, as Stripe Checkout's does), paid through a network
 * processor: once its intent succeeded, the method the processor saved for the customer becomes
 * our `pm_…` (payment_method.attached), once: the session's `saved_payment_method_id`, set in the
 * same transaction under the session's lock, says it is done. Called after the intent's outcome is
 * applied, by the return URL and by the webhook's job (whichever is second changes nothing); the
 * processor is asked (its attach, idempotent for the same customer: the card's details) with
 * nothing of ours locked.
 */
export async function saveMethodOfCheckout(ctx: ServiceContext, intent: { id: string; status: string; customerId: string | null; paymentMethod: string | null; processor: string | null; metadata: Record<string, string> }): Promise<PaymentMethodRow | null> {
  const sessionId = intent.metadata.checkout_session;
  if (!sessionId || intent.status !== "succeeded" || intent.customerId === null || intent.paymentMethod === null || intent.processor === null) return null;
  const db = await getDb();
  const ofSession = and(eq(checkoutSessions.accountId, ctx.accountId), eq(checkoutSessions.id, sessionId));
  const [session] = await db.select().from(checkoutSessions).where(ofSession);
  // A subscription's checkout always saves its card: its renewals charge it off-session.
  const saves = session?.mode === "subscription" || session?.setupFutureUsage === "off_session";
  if (!session || !saves || session.paymentIntentId !== intent.id) return null;
  if (session.savedPaymentMethodId !== null) return methodRow(session.savedPaymentMethodId);
  const processor = await connectedProcessor(db, ctx.accountId);
  if (!processor?.remote || processor.name !== intent.processor) return null;
  const customer = await getCustomer({ ctx, input: { id: intent.customerId } });
  const customerId = customer.id;
  const method = intent.paymentMethod;
  const saved = await atProcessor(async () => processor.savePaymentMethod({ processorCustomer: await processorCustomer(db, processor, ctx.accountId, customer), paymentMethod: method }));
  return withChangeTransaction(async (tx) => {
    const [locked] = await tx.select().from(checkoutSessions).where(ofSession).for("update");
    if (locked!.savedPaymentMethodId !== null) return methodRow(locked!.savedPaymentMethodId, tx);
    const paymentMethod = await recordSavedMethod(tx, ctx, customerId, processor.name, saved);
    await tx.update(checkoutSessions).set({ savedPaymentMethodId: paymentMethod.id }).where(ofSession);
    return paymentMethod;
  });
}
