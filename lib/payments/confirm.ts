import type { ServiceContext, Verb } from "@/lib/context";
import { ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { applyInvoiceOutcome } from "./invoice-outcome";
import { checkPaymentMethod, lockIntent, missingPaymentMethod, recordPayment, transition } from "./core";
import { canConfirmIntent } from "./statuses";
import { customers } from "@/db/schema";
import { eq } from "drizzle-orm";
import { processorCustomer } from "./processors/registry";
import { ProcessorRefusedError, ProcessorUnavailableError, type ChargeState, type PaymentProcessor } from "./processors/types";
import type { PaymentIntentRow } from "./serialize";

/* Confirming an intent: the sandbox method's outcome, its charge, its transition, and what its invoice learns. */

/**
 * An invoice's intent tells its invoice how it ended (lib/invoices/payment-hooks.ts), in the same
 * transaction: succeeded pays it, a decline or a required action is recorded on it, partial
 * funding reduces what is due. The hook is handed in at start-up (./invoice-outcome.ts): invoices
 * collect through payments, so payments do not import invoices.
 */
export async function notifyInvoice(tx: ChangeTransaction, ctx: ServiceContext, before: PaymentIntentRow, after: PaymentIntentRow): Promise<void> {
  if (after.invoiceId === null) return;
  const receivedAtom = after.amountReceivedAtom - before.amountReceivedAtom;
  switch (after.status) {
    case "succeeded":
      return applyInvoiceOutcome(tx, ctx, after.invoiceId, { kind: "succeeded", receivedAtom });
    case "partially_funded":
      return applyInvoiceOutcome(tx, ctx, after.invoiceId, { kind: "partially_funded", receivedAtom });
    case "requires_payment_method":
      return applyInvoiceOutcome(tx, ctx, after.invoiceId, { kind: "payment_failed" });
    case "requires_action":
      return applyInvoiceOutcome(tx, ctx, after.invoiceId, { kind: "requires_action" });
    default:
      // requires_capture: invoice intents capture automatically, so an authorization pays nothing yet.
      return;
  }
}

export async function confirmLocked(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
  offSession = false,
): Promise<PaymentIntentRow> {
  const after = await settleConfirmation(tx, ctx, before, requestedMethod, offSession);
  await notifyInvoice(tx, ctx, before, after);
  return after;
}

async function settleConfirmation(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
  offSession: boolean,
): Promise<PaymentIntentRow> {
  if (!canConfirmIntent(before.status)) {
    throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be confirmed.`);
  }
  const method = requestedMethod ?? before.paymentMethod;
  if (!method) throw missingPaymentMethod();
  const processor = await checkPaymentMethod(tx, ctx, method, before.captureMethod);
  const remainingAtom = before.amountAtom - before.amountReceivedAtom;
  const attempt = before.processorAttempts + 1;
  // The processor's charge of an earlier confirmation is kept only when the same processor charges again.
  const reference = before.processor === processor.name ? before.processorReference : null;
  const processorCustomer = await atProcessor(() => customerAtProcessor(tx, ctx, processor, before.customerId));
  const state = await atProcessor(() => processor.charge({
    // Our payment attempt: the intent and its confirmation number. A retry of this confirmation
    // (the transaction rolled back after a timeout) sends the same key, so it never charges twice.
    idempotencyKey: `${before.id}-confirm-${attempt}`,
    intentId: before.id,
    amountAtom: remainingAtom,
    currency: before.currency,
    paymentMethod: method,
    processorCustomer,
    captureMethod: before.captureMethod,
    offSession,
    actionPending: before.status === "requires_action" && before.paymentMethod === method,
    reference,
  }));
  const charged = { paymentMethod: method, processor: processor.name, processorReference: state.reference, processorAttempts: attempt, lastPaymentError: null };
  return applyChargeState(tx, ctx, before, charged, state, remainingAtom);
}

/**
 * The processor's refusals as the API's: a 422 naming the field, or a 503 (retryable) when it could
 * not be reached; the transaction then rolls back, and a retry sends the same idempotency key.
 */
async function atProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusedError) throw validationFailed([{ field: error.field, message: error.message }]);
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} Nothing was charged twice: try again.`, { retryable: true });
    throw error;
  }
}

/** The customer's counterpart at a processor that keeps customers (the sandbox keeps none). */
async function customerAtProcessor(tx: ChangeTransaction, ctx: ServiceContext, processor: PaymentProcessor, customerId: string | null): Promise<string | null> {
  if (customerId === null || processor.name === "sandbox") return null;
  const [customer] = await tx.select({ id: customers.id, email: customers.email, name: customers.name }).from(customers).where(eq(customers.id, customerId));
  return customer ? processorCustomer(tx, processor, ctx.accountId, customer) : null;
}

type ChargeColumns = Pick<PaymentIntentRow, "paymentMethod" | "processor" | "processorReference" | "processorAttempts" | "lastPaymentError">;

/**
 * Writes what a charge ended in: its transitions, their events and the payment, as the sandbox
 * always did (processing, then the outcome). A charge still in flight at the processor stays
 * `processing`; its webhook (or a re-read) settles it later.
 */
export async function applyChargeState(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  charged: ChargeColumns,
  state: ChargeState,
  remainingAtom: number,
): Promise<PaymentIntentRow> {
  const method = charged.paymentMethod!;
  if (state.status === "requires_action") {
    return transition(tx, ctx, before, "payment_intent.requires_action", { status: "requires_action", ...charged });
  }
  if (state.status === "canceled") {
    return transition(tx, ctx, before, "payment_intent.canceled", { status: "canceled", ...charged, canceledAt: ctx.now(), amountCapturableAtom: 0 });
  }
  const processing = before.status === "processing" ? before : await transition(tx, ctx, before, "payment_intent.processing", { status: "processing", ...charged });
  switch (state.status) {
    case "processing":
      return processing;
    case "requires_capture":
      return transition(tx, ctx, processing, "payment_intent.amount_capturable_updated", {
        status: "requires_capture",
        amountCapturableAtom: state.capturableAtom,
      });
    case "succeeded": {
      // What this charge collected (a processor's charge is made for the remaining amount only).
      const receivedAtom = Math.min(remainingAtom, state.receivedAtom);
      await recordPayment(tx, ctx, processing, { amountAtom: receivedAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.succeeded", {
        status: "succeeded",
        amountReceivedAtom: before.amountReceivedAtom + receivedAtom,
      });
    }
    case "declined":
      await recordPayment(tx, ctx, processing, { amountAtom: remainingAtom, paymentMethod: method, failureMessage: state.message });
      // As in Stripe, the failed method is detached: the intent needs a new one.
      return transition(tx, ctx, processing, "payment_intent.payment_failed", {
        status: "requires_payment_method",
        paymentMethod: null,
        lastPaymentError: state.message,
      });
    case "partially_funded":
      await recordPayment(tx, ctx, processing, { amountAtom: state.receivedAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.partially_funded", {
        status: "partially_funded",
        amountReceivedAtom: before.amountReceivedAtom + state.receivedAtom,
      });
  }
}

/**
 * Confirms an intent with its payment method (or `paymentMethod`): the sandbox method decides the
 * outcome. Emits processing then the outcome's events in one transaction (the caller's, if given).
 */
export async function confirmPaymentIntent({
  ctx,
  input,
  tx,
}: Verb<{ id: string; paymentMethod?: string }> & WithinChange): Promise<PaymentIntentRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    return confirmLocked(tx, ctx, before, input.paymentMethod);
  }, tx);
}
