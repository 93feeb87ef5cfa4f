/*
 * When a payment can be refunded, declared once. Pure (values only): the refund service's 409
 * guards read it, and so does the dashboard's Refund form (components/objects/object-actions.tsx).
 */

export type RefundablePayment = { status: string; amountAtom: number; amountRefundedAtom: number };

/** Why a refund of the payment is refused (409), or null when some of it can still be refunded. */
export function refundRefusal(payment: RefundablePayment): "failed" | "fully_refunded" | null {
  if (payment.status === "failed") return "failed";
  if (payment.amountAtom - payment.amountRefundedAtom === 0) return "fully_refunded";
  return null;
}

export const canRefund = (payment: RefundablePayment): boolean => refundRefusal(payment) === null;

/** Every action the dashboard offers on a payment with whether it allows it. */
export const paymentActions = (payment: RefundablePayment) => ({ refund: canRefund(payment) });

/** The facts of the API's payment object (the dashboard's shape). */
export const refundablePayment = (payment: Record<string, unknown>): RefundablePayment => ({
  status: String(payment.status),
  amountAtom: Number(payment.amount_atom ?? 0),
  amountRefundedAtom: Number(payment.amount_refunded_atom ?? 0),
});
