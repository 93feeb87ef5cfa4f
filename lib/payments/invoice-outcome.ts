import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";
import type { PaymentIntentOutcome } from "@/lib/invoices/payment-hooks";

/**
 * What an invoice's payment intent tells its invoice when it ends (lib/invoices/payment-hooks.ts
 * `applyPaymentIntentOutcome`), handed in at start-up (lib/server/wiring.ts): invoices collect
 * through payments, so payments importing invoices back would tie the two folders into one cycle.
 * Kept on globalThis because Next.js bundles a module more than once per process.
 */
type ApplyOutcome = (tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, outcome: PaymentIntentOutcome) => Promise<void>;

const APPLY = Symbol.for("billing.payments.invoice-outcome");
type GlobalWithApply = typeof globalThis & { [APPLY]?: ApplyOutcome };

export function registerInvoiceOutcome(apply: ApplyOutcome): void {
  (globalThis as GlobalWithApply)[APPLY] = apply;
}

/** Applies the outcome to the invoice inside the intent's transaction; unwired, it fails (and rolls back) rather than leave the invoice behind. */
export function applyInvoiceOutcome(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string, outcome: PaymentIntentOutcome): Promise<void> {
  const apply = (globalThis as GlobalWithApply)[APPLY];
  if (!apply) throw new Error("No invoice outcome registered: the entry point must call wire() (lib/server/wiring.ts) first.");
  return apply(tx, ctx, invoiceId, outcome);
}
