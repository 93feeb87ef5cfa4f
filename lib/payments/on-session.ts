import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { customers, paymentIntents } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { atProcessor, applyProcessorState } from "./charge-attempts";
import { lockIntent } from "./core";
import { connectedProcessor, processorCustomer, processorNamed } from "./processors/registry";
import type { OnSessionIntent, PaymentProcessor } from "./processors/types";
import type { PaymentIntentRow } from "./serialize";

/*
 * On-session payments collected in the customer's browser by the processor's own client library
 * (Stripe.js and its Payment Element, on the hosted checkout and invoice pages; docs/payments.md,
 * "The hosted pages with Stripe"). The server makes the processor's charge unconfirmed and hands
 * the page its client secret; the browser confirms it (3-D Secure included). Our intent learns the
 * outcome only from the processor: its verified webhook or a retrieve on the return URL, both
 * through applyProcessorState under the intent's lock, so whichever comes second changes nothing.
 * The browser's word is never taken.
 */

/** What the hosted page opens the client library with. */
export type OnSessionCollection = OnSessionIntent & { intentId: string; publishableKey: string };

/** The account's connected processor when it collects on-session payments in the browser (Stripe), else null. */
export async function onSessionProcessor(accountId: string): Promise<PaymentProcessor | null> {
  const processor = await connectedProcessor(await getDb(), accountId);
  return processor?.prepareOnSession ? processor : null;
}

/** The account's publishable key for the client library, or null when its processor collects no payment in the browser. */
export async function onSessionPublishableKey(accountId: string): Promise<string | null> {
  const processor = await onSessionProcessor(accountId);
  return processor ? processor.clientKey ?? null : null;
}

/**
 * Prepares (or prepares again: the same processor charge, keyed by our intent) the processor's
 * charge of our intent, which must be waiting for a payment method. Called outside any
 * transaction: the processor is asked with nothing of ours locked, then the reference is recorded.
 */
export async function prepareOnSessionPayment(ctx: ServiceContext, intentId: string, options: { setupFutureUsage?: "off_session" } = {}): Promise<OnSessionCollection> {
  const db = await getDb();
  const processor = await onSessionProcessor(ctx.accountId);
  if (!processor?.prepareOnSession) throw new ServiceError("conflict", "This account has no payment processor that collects payments in the browser.");
  const [intent] = await db.select().from(paymentIntents).where(and(eq(paymentIntents.accountId, ctx.accountId), eq(paymentIntents.id, intentId)));
  if (!intent) throw notFound("payment intent", intentId);
  assertCollectable(intent);
  const [customer] = intent.customerId
    ? await db.select({ id: customers.id, email: customers.email, name: customers.name }).from(customers).where(eq(customers.id, intent.customerId))
    : [];
  const prepared = await atProcessor(async () =>
    processor.prepareOnSession!({
      intentId: intent.id,
      // One processor charge per intent: preparing again (a reload, a retry) answers the same one.
      idempotencyKey: `${intent.id}-on-session`,
      amountAtom: intent.amountAtom - intent.amountReceivedAtom,
      currency: intent.currency,
      processorCustomer: customer ? await processorCustomer(db, processor, ctx.accountId, customer) : null,
      reference: intent.processor === processor.name ? intent.processorReference : null,
      setupFutureUsage: options.setupFutureUsage,
    }),
  );
  await withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, intentId);
    if (before.processorReference === prepared.reference) return;
    assertCollectable(before);
    await tx
      .update(paymentIntents)
      .set({ processor: processor.name, processorReference: prepared.reference, updated: ctx.now() })
      .where(eq(paymentIntents.id, intentId));
  });
  return { ...prepared, intentId, publishableKey: processor.clientKey ?? "" };
}

function assertCollectable(intent: PaymentIntentRow): void {
  if (intent.chargeInFlight) throw new ServiceError("conflict", `A charge of payment intent '${intent.id}' is in flight; wait for its outcome.`, { retryable: true });
  if (intent.status !== "requires_payment_method" && intent.status !== "requires_action") {
    throw new ServiceError("conflict", `Payment intent '${intent.id}' is ${intent.status}; it cannot be paid in the browser.`);
  }
}

/**
 * The return URL's check: our intent brought to the state its processor has it in now (a
 * retrieve, not the browser's word), once, whatever the webhook did meanwhile. `reference` is the
 * processor's id the browser came back with; it must be this intent's.
 */
export async function settleOnSessionPayment(ctx: ServiceContext, intentId: string, reference: string): Promise<PaymentIntentRow> {
  const db = await getDb();
  const [intent] = await db.select().from(paymentIntents).where(and(eq(paymentIntents.accountId, ctx.accountId), eq(paymentIntents.id, intentId)));
  if (!intent) throw notFound("payment intent", intentId);
  if (intent.processorReference !== reference) return intent;
  const processor = await processorNamed(db, ctx.accountId, intent.processor);
  if (!processor?.remote) return intent;
  const state = await atProcessor(() => processor.retrieve(reference));
  return (await applyProcessorState(ctx, intentId, state)).row;
}

/** An intent by the processor's reference (the return URL's `payment_intent`), within one account. */
export async function intentByReference(db: ChangeTransaction | Awaited<ReturnType<typeof getDb>>, accountId: string, reference: string): Promise<PaymentIntentRow | null> {
  const [row] = await db.select().from(paymentIntents).where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.processorReference, reference))).limit(1);
  return row ?? null;
}
