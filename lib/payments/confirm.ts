import type { ServiceContext, Verb } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { applyInvoiceOutcome } from "./invoice-outcome";
import { checkPaymentMethod, lockIntent, missingPaymentMethod, recordPayment, transition } from "./core";
import { canConfirmIntent } from "./statuses";
import { confirmOutcome } from "./sandbox";
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
): Promise<PaymentIntentRow> {
  const after = await settleConfirmation(tx, ctx, before, requestedMethod);
  await notifyInvoice(tx, ctx, before, after);
  return after;
}

async function settleConfirmation(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
): Promise<PaymentIntentRow> {
  if (!canConfirmIntent(before.status)) {
    throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be confirmed.`);
  }
  const requested = requestedMethod ?? before.paymentMethod;
  if (!requested) throw missingPaymentMethod();
  const method = checkPaymentMethod(ctx, requested, before.captureMethod);
  const remainingAtom = before.amountAtom - before.amountReceivedAtom;

  // Confirming again while the action is pending means the customer completed it.
  const actionCompleted = before.status === "requires_action" && method === "pm_sandbox_requires_action";
  const outcome = actionCompleted ? ({ kind: "succeeds" } as const) : confirmOutcome(method, remainingAtom);

  if (outcome.kind === "requires_action") {
    return transition(tx, ctx, before, "payment_intent.requires_action", {
      status: "requires_action",
      paymentMethod: method,
      lastPaymentError: null,
    });
  }

  const processing = await transition(tx, ctx, before, "payment_intent.processing", {
    status: "processing",
    paymentMethod: method,
    lastPaymentError: null,
  });
  switch (outcome.kind) {
    case "succeeds":
      if (before.captureMethod === "manual") {
        return transition(tx, ctx, processing, "payment_intent.amount_capturable_updated", {
          status: "requires_capture",
          amountCapturableAtom: remainingAtom,
        });
      }
      await recordPayment(tx, ctx, processing, { amountAtom: remainingAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.succeeded", {
        status: "succeeded",
        amountReceivedAtom: before.amountAtom,
      });
    case "declined":
      await recordPayment(tx, ctx, processing, { amountAtom: remainingAtom, paymentMethod: method, failureMessage: outcome.message });
      // As in Stripe, the failed method is detached: the intent needs a new one.
      return transition(tx, ctx, processing, "payment_intent.payment_failed", {
        status: "requires_payment_method",
        paymentMethod: null,
        lastPaymentError: outcome.message,
      });
    case "partially_funded":
      await recordPayment(tx, ctx, processing, { amountAtom: outcome.fundedAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.partially_funded", {
        status: "partially_funded",
        amountReceivedAtom: before.amountReceivedAtom + outcome.fundedAtom,
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
