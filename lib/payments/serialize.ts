import type { paymentIntents, payments } from "@/db/schema";
import type { PaymentIntentObject, PaymentObject } from "./schema";

export type PaymentIntentRow = typeof paymentIntents.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;

/** The payment intent as the API shows it, and as event data records it. */
export function serializePaymentIntent(row: PaymentIntentRow, livemode: boolean): PaymentIntentObject {
  return {
    id: row.id,
    object: "payment_intent",
    amount_atom: row.amountAtom,
    amount_capturable_atom: row.amountCapturableAtom,
    amount_received_atom: row.amountReceivedAtom,
    currency: row.currency,
    customer: row.customerId,
    invoice: row.invoiceId,
    status: row.status,
    capture_method: row.captureMethod,
    payment_method: row.paymentMethod,
    last_payment_error: row.lastPaymentError,
    canceled_at: row.canceledAt?.toISOString() ?? null,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

/** The payment (a charge) as the API shows it, and as event data records it. */
export function serializePayment(row: PaymentRow, livemode: boolean): PaymentObject {
  return {
    id: row.id,
    object: "payment",
    payment_intent: row.paymentIntentId,
    amount_atom: row.amountAtom,
    amount_refunded_atom: row.amountRefundedAtom,
    currency: row.currency,
    status: row.status,
    payment_method: row.paymentMethod,
    failure_message: row.failureMessage,
    livemode,
    created: row.created.toISOString(),
  };
}
