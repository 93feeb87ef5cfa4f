import { validationFailed } from "@/lib/errors";
import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/schema";

/**
 * Sandbox payment methods: a confirmation with one never talks to a card network or a bank. On
 * sandbox accounts these constants decide the outcome of a confirmation (and of a refund)
 * deterministically, so integrations can exercise every path; live accounts refuse them and
 * collect through their connected processor (Stripe: lib/payments/processors/stripe).
 *
 * | method | on confirm | afterwards |
 * |---|---|---|
 * | `pm_sandbox_succeeds` | processing → succeeded (requires_capture with `capture_method: manual`) | refunds succeed |
 * | `pm_sandbox_declined` | processing → requires_payment_method, a failed payment | confirm again with another method |
 * | `pm_sandbox_requires_action` | requires_action | confirm again (the customer completed the action) → succeeds |
 * | `pm_sandbox_partially_funded` | processing → partially_funded, half the remaining amount received | confirm again with another method for the rest |
 * | `pm_sandbox_refund_fails` | as `pm_sandbox_succeeds` | refunds of its payments fail |
 */
export type SandboxPaymentMethod = (typeof SANDBOX_PAYMENT_METHODS)[number];

export const DECLINE_MESSAGE = "Your card was declined (sandbox payment method pm_sandbox_declined).";
export const REFUND_FAILURE_MESSAGE = "The refund was refused (sandbox payment method pm_sandbox_refund_fails).";
export const LIVE_REFUSAL_MESSAGE =
  "sandbox payment methods work only on sandbox accounts; a live account is charged through a connected processor (PUT /payment-processor)";

export function isSandboxPaymentMethod(value: string): value is SandboxPaymentMethod {
  return (SANDBOX_PAYMENT_METHODS as readonly string[]).includes(value);
}

/**
 * A sandbox method, on a sandbox account only (a live account is charged through its processor). A
 * refusal is a 422 naming `field` (the body field that carried the method).
 */
export function checkSandboxPaymentMethod(livemode: boolean, method: string, field = "payment_method"): SandboxPaymentMethod {
  if (livemode) throw validationFailed([{ field, message: `${LIVE_REFUSAL_MESSAGE}.` }]);
  if (!isSandboxPaymentMethod(method)) {
    throw validationFailed([{ field, message: `Unknown payment method '${method}'; use one of ${SANDBOX_PAYMENT_METHODS.join(", ")}.` }]);
  }
  return method;
}

/** What a confirmation with `method` does to the amount still to collect. */
export type ConfirmOutcome =
  | { kind: "succeeds" }
  | { kind: "declined"; message: string }
  | { kind: "requires_action" }
  | { kind: "partially_funded"; fundedAtom: number };

export function confirmOutcome(method: SandboxPaymentMethod, remainingAtom: number): ConfirmOutcome {
  switch (method) {
    case "pm_sandbox_succeeds":
    case "pm_sandbox_refund_fails":
      return { kind: "succeeds" };
    case "pm_sandbox_declined":
      return { kind: "declined", message: DECLINE_MESSAGE };
    case "pm_sandbox_requires_action":
      return { kind: "requires_action" };
    case "pm_sandbox_partially_funded": {
      // Half, rounded down; a single remaining atom cannot be split, so it is collected whole.
      const fundedAtom = Math.floor(remainingAtom / 2);
      return fundedAtom === 0 ? { kind: "succeeds" } : { kind: "partially_funded", fundedAtom };
    }
  }
}

/** Whether a refund of a payment made with `method` succeeds. */
export function refundSucceeds(method: string): boolean {
  return method !== "pm_sandbox_refund_fails";
}
