import type { ServiceContext, Verb } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { recordAttempt, resumeAttempt } from "./charge-attempts";
import { applyChargeState, notifyInvoice } from "./charge-state";
import { checkPaymentMethod, lockIntent, missingPaymentMethod, readIntent } from "./core";
import { canConfirmIntent } from "./statuses";
import type { PaymentIntentRow } from "./serialize";

/*
 * Confirming an intent. The sandbox decides in process, inside the intent's transaction; a network
 * processor (Stripe) is called after the commit (./charge-attempts.ts), its outcome applied then.
 */

/**
 * Confirms the locked intent in `tx`. With the sandbox the answer is the outcome; with a network
 * processor it is the intent as recorded (unchanged status, the charge in flight), and the charge
 * is sent once `tx`'s outermost change commits: the caller reads the outcome after that.
 */
export async function confirmLocked(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
  offSession = false,
): Promise<PaymentIntentRow> {
  if (before.chargeInFlight) return resumeAttempt(tx, ctx, before, requestedMethod);
  if (!canConfirmIntent(before.status)) {
    throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be confirmed.`);
  }
  const method = requestedMethod ?? before.paymentMethod;
  if (!method) throw missingPaymentMethod();
  const { processor, processorMethod } = await checkPaymentMethod(tx, ctx, method, before.captureMethod, before.customerId);
  if (processor.remote) return recordAttempt(tx, ctx, before, processor, { method, processorMethod }, offSession);
  const remainingAtom = before.amountAtom - before.amountReceivedAtom;
  const attempt = before.processorAttempts + 1;
  const state = await processor.charge({
    idempotencyKey: `${before.id}-confirm-${attempt}`,
    intentId: before.id,
    amountAtom: remainingAtom,
    currency: before.currency,
    paymentMethod: processorMethod,
    processorCustomer: null,
    captureMethod: before.captureMethod,
    offSession,
    actionPending: before.status === "requires_action" && before.paymentMethod === method,
    reference: null,
  });
  const charged = { paymentMethod: method, processor: processor.name, processorReference: state.reference, processorAttempts: attempt, lastPaymentError: null };
  const after = await applyChargeState(tx, ctx, before, charged, state, remainingAtom);
  await notifyInvoice(tx, ctx, before, after);
  return after;
}

/**
 * Confirms an intent with its payment method (or `paymentMethod`). Emits processing then the
 * outcome's events; in the caller's transaction (`tx`) a network processor's charge waits for its
 * commit. Answers the intent as it stands once this change (and its charge) is done.
 */
export async function confirmPaymentIntent({
  ctx,
  input,
  tx,
}: Verb<{ id: string; paymentMethod?: string }> & WithinChange): Promise<PaymentIntentRow> {
  const row = await withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    return confirmLocked(tx, ctx, before, input.paymentMethod);
  }, tx);
  return tx ? row : readIntent(ctx.accountId, row.id);
}
