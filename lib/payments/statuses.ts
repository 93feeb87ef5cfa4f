/*
 * The payment statuses and what each allows, declared once. Pure (no server imports): the API's
 * schema and services read it, and so does the dashboard, which shows an action exactly when the
 * API accepts it.
 */

export const PAYMENT_INTENT_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "partially_funded",
  "succeeded",
  "canceled",
] as const;
export type IntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];

export const PAYMENT_STATUSES = ["succeeded", "failed", "refunded", "partially_refunded"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** A payment intent in these statuses can be confirmed (POST …/confirm). */
export const CONFIRMABLE_INTENT_STATUSES: readonly IntentStatus[] = ["requires_payment_method", "requires_confirmation", "requires_action", "partially_funded"];

/** A payment intent in these statuses can be canceled (POST …/cancel); the dashboard's Cancel button follows. */
export const CANCELABLE_INTENT_STATUSES: readonly IntentStatus[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "requires_capture",
  "partially_funded",
];

export function canCancelIntent(status: string): boolean {
  return (CANCELABLE_INTENT_STATUSES as readonly string[]).includes(status);
}

export function canConfirmIntent(status: string): boolean {
  return (CONFIRMABLE_INTENT_STATUSES as readonly string[]).includes(status);
}

/** Every action the dashboard offers on a payment intent with whether its status allows it. */
export const paymentIntentActions = (intent: { status: string }) => ({ cancel: canCancelIntent(intent.status) });

/**
 * A charge recorded on its intent (`payment_intents.charge_in_flight`) and committed before it is
 * sent to a network processor, so that no transaction of ours is open while the processor answers
 * (docs/payments.md, "Charges outside our transactions"): everything needed to send it again with
 * the same idempotency key. The processor interface's ChargeRequest, less what is looked up when
 * it is sent.
 */
export type ChargeAttempt = {
  processor: string;
  /** The confirmation number the key carries. */
  attempt: number;
  idempotencyKey: string;
  amountAtom: number;
  currency: string;
  /** The method the intent was confirmed with: a saved method's `pm_…`, or a processor's own id. */
  paymentMethod: string;
  /** The processor's id of that method (a saved method's reference); absent on attempts recorded before saved methods were charged, whose `paymentMethod` is the processor's. */
  processorPaymentMethod?: string;
  captureMethod: "automatic" | "manual";
  offSession: boolean;
  actionPending: boolean;
  /** The processor's charge of an earlier confirmation of this intent, if any. */
  reference: string | null;
  /** Our customer, whose counterpart at the processor is made (or found) when the charge is sent. */
  customerId: string | null;
  /** When it was recorded (the account's time). */
  recordedAt: string;
};
