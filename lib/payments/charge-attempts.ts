import { and, eq } from "drizzle-orm";
import pLimit, { type LimitFunction } from "p-limit";
import { getDb, type Executor } from "@/db/client";
import { customers, paymentIntents } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError, validationFailed } from "@/lib/errors";
import { trackBackgroundWork } from "@/lib/clock/background-work";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { log, safeError } from "@/lib/log";
import { one } from "@/lib/rows";
import { MINUTE_MS } from "@/lib/time";
import { applyChargeState, notifyInvoice, type ChargeColumns } from "./charge-state";
import { lockIntent } from "./core";
import { notifyIntentSucceeded } from "./succeeded-hooks";
import { processorCustomer, processorNamed } from "./processors/registry";
import { ProcessorRefusedError, ProcessorUnavailableError, type ChargeAttempt, type ChargeState, type PaymentProcessor } from "./processors/types";
import type { PaymentIntentRow } from "./serialize";

/*
 * Charges at a network processor, never while a transaction of ours is open (docs/payments.md,
 * "Charges outside our transactions"): the attempt is recorded on its intent with its idempotency
 * key and committed; then it is sent; then its outcome is applied in a second transaction. Applying
 * is idempotent (the processor's webhook, the reconciliation job and a retry may bring the same
 * outcome), and an attempt left in flight by a crash is sent again with the same key, so it never
 * charges twice.
 */

/** How long an intent may stay in flight or processing at its processor before the reconciliation job re-reads it (issue #36: 15 minutes). */
export const RECONCILE_AFTER_MS = 15 * MINUTE_MS;

const reconcileAfter = (ctx: ServiceContext) => new Date(ctx.now().getTime() + RECONCILE_AFTER_MS);

/**
 * After the reconciliation job looked at a row (an intent here, a refund in lib/refunds): its next
 * `reconcile_at`, RECONCILE_AFTER_MS on while still unsettled, null once settled; undefined when
 * nothing is to be written (not due any more, or a later time set meanwhile by another change).
 */
export function nextReconcileAt(ctx: ServiceContext, current: Date | null, unsettled: boolean): Date | null | undefined {
  if (current === null) return undefined;
  const next = unsettled ? reconcileAfter(ctx) : null;
  return next === null || current.getTime() <= ctx.now().getTime() ? next : undefined;
}

/**
 * Records a charge of `before` on `processor` (a remote one) with the intent locked in `tx`, and
 * queues its sending for after the commit. Answers the intent as recorded: its status is unchanged
 * until the outcome is applied.
 */
export async function recordAttempt(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  processor: PaymentProcessor,
  method: { method: string; processorMethod: string },
  offSession: boolean,
): Promise<PaymentIntentRow> {
  const attempt = before.processorAttempts + 1;
  const charge: ChargeAttempt = {
    processor: processor.name,
    attempt,
    // Our payment attempt: the intent and its confirmation number. Sending it again (a retry, the
    // reconciliation job) sends the same key, so the processor answers the charge it made.
    idempotencyKey: `${before.id}-confirm-${attempt}`,
    amountAtom: before.amountAtom - before.amountReceivedAtom,
    currency: before.currency,
    paymentMethod: method.method,
    processorPaymentMethod: method.processorMethod,
    captureMethod: before.captureMethod,
    offSession,
    actionPending: before.status === "requires_action" && before.paymentMethod === method.method,
    // The processor's charge of an earlier confirmation is kept only when the same processor charges again.
    reference: before.processor === processor.name ? before.processorReference : null,
    customerId: before.customerId,
    recordedAt: ctx.now().toISOString(),
  };
  const row = one(await tx
    .update(paymentIntents)
    .set({ chargeInFlight: charge, processorAttempts: attempt, reconcileAt: reconcileAfter(ctx), updated: ctx.now() })
    .where(eq(paymentIntents.id, before.id))
    .returning());
  tx.afterCommit(() => (isBackground(ctx) ? sendInBackground(ctx, before.id) : sendAttempt(ctx, before.id).then(() => undefined)));
  return row;
}

/**
 * How many charges of background work (renewals, dunning retries) one process sends at once.
 * A request waits for its own charge to answer with the outcome; a renewal does not: it hands its
 * charge to this pool and the clock goes on to the next renewal, so 1,000 renewals due together
 * take about 1,000 × the processor's latency ÷ this, not 1,000 × it (docs/performance.md).
 */
export const BACKGROUND_CHARGE_CONCURRENCY = 16;

const POOL = Symbol.for("billing.payments.background-charges");
type GlobalWithPool = typeof globalThis & { [POOL]?: LimitFunction };

/** One pool per process (Next.js may bundle this module more than once). */
function backgroundCharges(): LimitFunction {
  const global = globalThis as GlobalWithPool;
  return (global[POOL] ??= pLimit(BACKGROUND_CHARGE_CONCURRENCY));
}

/** Work of the clock and the jobs, not of a request (lib/clock/service.ts `systemContext`). */
const isBackground = (ctx: ServiceContext) => ctx.requestId === undefined && ctx.actor.type === "system";

/**
 * Queues the charge and returns at once. The attempt is committed in flight with its
 * `reconcile_at`: should the process stop before it is sent, or Stripe fail it for now, the
 * reconciliation job sends it again with the same key.
 */
async function sendInBackground(ctx: ServiceContext, intentId: string): Promise<void> {
  const sent = backgroundCharges()(() =>
    sendAttempt(ctx, intentId).then(
      () => undefined,
      (error: unknown) => log().warn({ err: safeError(error), payment_intent: intentId }, "background charge not sent; the reconciliation job sends it again"),
    ),
  );
  // A test clock's advance waits for it before it moves on (lib/clock/background-work.ts); only
  // sandbox accounts have a test clock, so a live account's charges are not tracked.
  if (!ctx.livemode) trackBackgroundWork(ctx.accountId, sent);
}

/**
 * Confirming an intent whose charge is in flight sends that charge again, with its key, after the
 * commit: the retry of a confirmation that timed out. Another method is refused (409): the charge
 * in flight may have been made.
 */
export function resumeAttempt(tx: ChangeTransaction, ctx: ServiceContext, before: PaymentIntentRow, requestedMethod: string | undefined): PaymentIntentRow {
  const charge = before.chargeInFlight!;
  if (requestedMethod !== undefined && requestedMethod !== charge.paymentMethod) {
    throw new ServiceError(
      "conflict",
      `A charge of this payment intent with ${charge.paymentMethod} is in flight at ${charge.processor}; confirm again with that method (it is sent with the same idempotency key) or wait for its outcome.`,
    );
  }
  tx.afterCommit(() => sendAttempt(ctx, before.id).then(() => undefined));
  return before;
}

/**
 * Sends the intent's charge in flight (if it still is) and applies the outcome. No transaction is
 * open while the processor answers. Unreachable: a retryable 503, the attempt stays in flight
 * (a retry or the reconciliation job sends it again). Refused: the attempt is dropped and the
 * refusal is the client's 422 (the processor keeps that answer under the key).
 */
export async function sendAttempt(ctx: ServiceContext, intentId: string): Promise<PaymentIntentRow | null> {
  const db = await getDb();
  const [row] = await db.select().from(paymentIntents).where(and(eq(paymentIntents.accountId, ctx.accountId), eq(paymentIntents.id, intentId)));
  const charge = row?.chargeInFlight;
  if (!row || !charge) return row ?? null;
  const processor = await processorNamed(db, ctx.accountId, charge.processor);
  if (!processor) throw new ServiceError("conflict", `The payment processor of this charge (${charge.processor}) is no longer connected.`);
  let state: ChargeState;
  try {
    const customer = await customerAtProcessor(db, ctx, processor, charge.customerId);
    // `paymentMethod` is ours (a saved pm_ or the processor's own id); the processor is sent its own.
    state = await processor.charge({ ...charge, paymentMethod: charge.processorPaymentMethod ?? charge.paymentMethod, intentId, processorCustomer: customer });
  } catch (error) {
    if (error instanceof ProcessorRefusedError) {
      await dropAttempt(ctx, intentId, charge.idempotencyKey);
      throw validationFailed([{ field: error.field, message: error.message }]);
    }
    if (error instanceof ProcessorUnavailableError) {
      throw new ServiceError("unavailable", `${error.message} The charge is recorded and is sent again with the same idempotency key: retry, nothing is charged twice.`, { retryable: true });
    }
    throw error;
  }
  return (await applyProcessorState(ctx, intentId, state)).row;
}

/**
 * A processor call's refusals as the API's: a 422 naming the field, or a retryable 503 when it
 * could not be reached (the call carries an idempotency key, so the retry does it once).
 */
export async function atProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusedError) throw validationFailed([{ field: error.field, message: error.message }]);
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} Nothing is done twice: try again.`, { retryable: true });
    throw error;
  }
}

async function dropAttempt(ctx: ServiceContext, intentId: string, key: string): Promise<void> {
  await withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, intentId);
    if (before.chargeInFlight?.idempotencyKey !== key) return;
    await tx.update(paymentIntents).set({ chargeInFlight: null, reconcileAt: null, updated: ctx.now() }).where(eq(paymentIntents.id, intentId));
  });
}

/** The customer's counterpart at a processor that keeps customers (created there on first use, idempotently, outside any transaction). */
async function customerAtProcessor(db: Executor, ctx: ServiceContext, processor: PaymentProcessor, customerId: string | null): Promise<string | null> {
  if (customerId === null) return null;
  const [customer] = await db.select({ id: customers.id, email: customers.email, name: customers.name }).from(customers).where(eq(customers.id, customerId));
  return customer ? processorCustomer(db, processor, ctx.accountId, customer) : null;
}

const STATUS_OF: Record<ChargeState["status"], PaymentIntentRow["status"]> = {
  succeeded: "succeeded",
  requires_capture: "requires_capture",
  requires_action: "requires_action",
  processing: "processing",
  declined: "requires_payment_method",
  partially_funded: "partially_funded",
  canceled: "canceled",
};

/**
 * Brings our intent to the processor's state, once, in its own transaction: the answer to the
 * charge, the processor's webhook and the reconciliation job all come here. A charge in flight is
 * settled by it (its method, key and amount); otherwise a final intent (succeeded, canceled) never
 * moves again (a late `processing` after `succeeded` changes nothing), and a state the intent is
 * in already is a no-op.
 */
export async function applyProcessorState(ctx: ServiceContext, intentId: string, state: ChargeState): Promise<{ row: PaymentIntentRow; applied: boolean }> {
  return withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, intentId);
    const charge = before.chargeInFlight;
    const reconcileAt = state.status === "processing" ? reconcileAfter(ctx) : null;
    let charged: ChargeColumns;
    let remainingAtom = before.amountAtom - before.amountReceivedAtom;
    if (charge) {
      charged = { paymentMethod: charge.paymentMethod, processor: charge.processor, processorReference: state.reference, processorAttempts: charge.attempt, lastPaymentError: null, chargeInFlight: null, reconcileAt };
      remainingAtom = charge.amountAtom;
    } else {
      if (before.status === "succeeded" || before.status === "canceled") return { row: before, applied: false };
      if (STATUS_OF[state.status] === before.status) return { row: before, applied: false };
      // A payment confirmed in the customer's browser (Stripe.js, ./on-session.ts): our intent had no
      // method, the processor's charge names the one the customer entered.
      const collected = state.method && state.reference !== null && state.reference === before.processorReference ? state.method : null;
      const method = before.paymentMethod ?? collected;
      // A decline detached the method already (paymentMethod null); it stays what it was charged with on the payment.
      if (method === null && state.status !== "canceled") return { row: before, applied: false };
      charged = { paymentMethod: method, processor: before.processor, processorReference: before.processorReference, processorAttempts: before.processorAttempts, lastPaymentError: null, reconcileAt };
    }
    let after = await applyChargeState(tx, ctx, before, charged, state, remainingAtom);
    if (after.chargeInFlight !== null || after.reconcileAt?.getTime() !== reconcileAt?.getTime()) {
      // The charge stayed where it was (processing again): only the bookkeeping columns change.
      after = one(await tx.update(paymentIntents).set({ chargeInFlight: null, reconcileAt }).where(eq(paymentIntents.id, intentId)).returning());
    }
    await notifyInvoice(tx, ctx, before, after);
    await notifyIntentSucceeded(tx, ctx, before, after);
    return { row: after, applied: true };
  });
}
