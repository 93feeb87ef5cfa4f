import type { subscriptionChangeRequests } from "@/db/schema";
import type { ChangeRequestObject } from "./schema";

export type ChangeRequestRow = typeof subscriptionChangeRequests.$inferSelect;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function serializeChangeRequest(row: ChangeRequestRow, livemode: boolean): ChangeRequestObject {
  return {
    id: row.id,
    object: "subscription_change_request",
    subscription: row.subscriptionId,
    status: row.status,
    steps: row.steps.map((step) => ({ type: step.type, item: step.item, price: step.price, quantity: step.quantity, state: step.state })),
    amount_due_now_atom: row.amountDueNowAtom,
    next_invoice_amount_atom: row.nextInvoiceAmountAtom,
    amount_due_now_total_atom: row.amountDueNowTotalAtom,
    next_invoice_total_atom: row.nextInvoiceTotalAtom,
    proration_behavior: row.prorationBehavior,
    proration_amount_atom: row.prorationAmountAtom,
    proration_credit_atom: Math.max(0, -row.prorationAmountAtom),
    balance_transaction: row.balanceTransactionId,
    currency: row.currency,
    proration_date: row.prorationDate.toISOString(),
    invoice: row.invoiceId,
    payment_collected_at: iso(row.paymentCollectedAt),
    applied_steps: row.appliedSteps,
    applied_at: iso(row.appliedAt),
    last_error: row.lastError,
    effective: row.effective,
    effective_at: iso(row.effectiveAt),
    cancellation_reason: row.cancellationReason,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
