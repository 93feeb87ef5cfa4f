import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { applyInvoiceOutcome } from "./invoice-outcome";
import { recordPayment, transition } from "./core";
import type { ChargeState } from "./processors/types";
import type { PaymentIntentRow } from "./serialize";

/* What a charge ended in, written as the spec's transitions and events, and told to the intent's invoice: one rule, whoever learned the outcome (the confirmation, the processor's webhook, the reconciliation job). */

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

export type ChargeColumns = Pick<PaymentIntentRow, "paymentMethod" | "processor" | "processorReference" | "processorAttempts" | "lastPaymentError"> &
  Partial<Pick<PaymentIntentRow, "chargeInFlight" | "reconcileAt">>;

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
