import type { ChargeRequest, ChargeState, PaymentProcessor, RefundState, SavedPaymentMethod } from "../types";
import { confirmOutcome, isSandboxPaymentMethod, REFUND_FAILURE_MESSAGE, refundSucceeds, type SandboxPaymentMethod } from "./methods";

/*
 * The sandbox processor: no card network, no bank, no network call. The method decides the outcome
 * deterministically (./methods.ts); sandbox accounts use it by default. It keeps no state of its own:
 * the payment intent row is the state, so `retrieve` and webhooks do not exist here.
 */

/** The last 4 digits of the Visa card each sandbox method stands for, when it is saved as a payment method. */
export const SANDBOX_CARD_LAST4: Record<SandboxPaymentMethod, string> = {
  pm_sandbox_succeeds: "4242",
  pm_sandbox_declined: "0002",
  pm_sandbox_requires_action: "3155",
  pm_sandbox_partially_funded: "1111",
  pm_sandbox_refund_fails: "5904",
};

function charge(request: ChargeRequest): ChargeState {
  if (!isSandboxPaymentMethod(request.paymentMethod)) throw new Error(`Not a sandbox payment method: ${request.paymentMethod}.`);
  // Confirming again while the action is pending means the customer completed it.
  const completed = request.actionPending && request.paymentMethod === "pm_sandbox_requires_action";
  const outcome = completed ? ({ kind: "succeeds" } as const) : confirmOutcome(request.paymentMethod, request.amountAtom);
  switch (outcome.kind) {
    case "succeeds":
      return request.captureMethod === "manual"
        ? { status: "requires_capture", reference: null, capturableAtom: request.amountAtom }
        : { status: "succeeded", reference: null, receivedAtom: request.amountAtom };
    case "declined":
      return { status: "declined", reference: null, message: outcome.message };
    case "requires_action":
      return { status: "requires_action", reference: null };
    case "partially_funded":
      return { status: "partially_funded", reference: null, receivedAtom: outcome.fundedAtom };
  }
}

export const sandboxProcessor: PaymentProcessor = {
  name: "sandbox",
  remote: false,
  checkPaymentMethod(method, captureMethod) {
    if (!isSandboxPaymentMethod(method)) return `Unknown payment method '${method}'.`;
    // Partial funding models a transfer that arrives in parts: there is no authorization to capture.
    if (method === "pm_sandbox_partially_funded" && captureMethod === "manual") return "pm_sandbox_partially_funded does not support capture_method manual.";
    return null;
  },
  async createCustomer({ customerId }) {
    return { reference: customerId };
  },
  async savePaymentMethod({ paymentMethod }): Promise<SavedPaymentMethod> {
    // A fixed Visa card per sandbox method (docs/payments.md, "Payment methods").
    const last4 = SANDBOX_CARD_LAST4[paymentMethod as SandboxPaymentMethod] ?? null;
    return { reference: paymentMethod, brand: "visa", last4, expMonth: 12, expYear: 2034 };
  },
  async updatePaymentMethod({ reference, expMonth, expYear }): Promise<SavedPaymentMethod> {
    // The sandbox's cards are simulated: a new expiry is taken as given (its method still charges as its name says).
    const last4 = SANDBOX_CARD_LAST4[reference as SandboxPaymentMethod] ?? null;
    return { reference, brand: "visa", last4, expMonth: expMonth ?? 12, expYear: expYear ?? 2034 };
  },
  async charge(request) {
    return charge(request);
  },
  async capture({ amountAtom }) {
    return { status: "succeeded", reference: null, receivedAtom: amountAtom };
  },
  async cancel() {
    return { status: "canceled", reference: null };
  },
  async refund({ paymentMethod }): Promise<RefundState> {
    return refundSucceeds(paymentMethod) ? { status: "succeeded", reference: null } : { status: "failed", reference: null, message: REFUND_FAILURE_MESSAGE };
  },
  async retrieve() {
    throw new Error("The sandbox processor keeps no state of its own: the payment intent is the state.");
  },
  parseWebhook() {
    throw new Error("The sandbox processor sends no webhooks.");
  },
  async retrieveDispute() {
    throw new Error("The sandbox processor has no disputes: its payments are never disputed.");
  },
  async retrieveRefund() {
    throw new Error("The sandbox settles refunds at once: there is nothing to re-read.");
  },
  ourReferenceOf() {
    return null;
  },
};
