import type { invoiceLines, invoices } from "@/db/schema";
import { publicBaseUrl } from "@/lib/config";
import { operationPath } from "@/lib/operation-paths";
import type { InvoiceLineObject, InvoiceObject } from "./schema";

/** The hosted invoice page of a token (app/invoice/[token]). */
export function hostedInvoiceUrl(token: string): string {
  return `${publicBaseUrl()}/invoice/${token}`;
}

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceLineRow = typeof invoiceLines.$inferSelect;

/**
 * An invoice with its lines in creation order and its latest payment intent (derived by query from
 * payment_intents.invoice_id; absent is shown as null, for callers that build one themselves).
 */
export type InvoiceWithLines = { invoice: InvoiceRow; lines: InvoiceLineRow[]; paymentIntent?: string | null };

export function serializeLine(row: InvoiceLineRow): InvoiceLineObject {
  return {
    id: row.id,
    price: row.priceId,
    description: row.description,
    quantity: row.quantity,
    unit_amount_atom: row.unitAmountAtom,
    amount_atom: row.amountAtom,
    tax_rates: row.taxRateIds,
    discount_atom: row.discountAtom,
    tax_amounts: row.taxAmounts,
  };
}

/** The invoice as the API shows it, and as event data records it (the spec's invoice fields included). */
export function serializeInvoice({ invoice, lines, paymentIntent }: InvoiceWithLines, livemode: boolean): InvoiceObject {
  return {
    id: invoice.id,
    object: "invoice",
    customer: invoice.customerId,
    subscription: invoice.subscriptionId,
    status: invoice.status,
    number: invoice.number,
    currency: invoice.currency,
    customer_name: invoice.document?.buyer.name ?? null,
    customer_email: invoice.document?.buyer.email ?? null,
    pdf_sha256: invoice.pdfSha256,
    paid_pdf_sha256: invoice.paidPdfSha256,
    invoice_pdf: invoice.status === "draft" ? null : `${publicBaseUrl()}${operationPath("getInvoicePdfForTokenAccount", { invoice_id: invoice.id })}`,
    hosted_invoice_url: invoice.hostedToken ? hostedInvoiceUrl(invoice.hostedToken) : null,
    subtotal_atom: invoice.subtotalAtom,
    discount_atom: invoice.discountAtom,
    tax_atom: invoice.taxAtom,
    total_taxes: invoice.totalTaxes,
    reverse_charge: invoice.reverseCharge,
    total_credits_applied_atom: invoice.creditsAppliedAtom,
    credits_applied: invoice.creditsApplied,
    total_amount_atom: invoice.totalAmountAtom,
    due_amount_atom: invoice.dueAmountAtom,
    paid_amount_atom: invoice.paidAmountAtom,
    pre_payment_credit_notes_amount_atom: invoice.prePaymentCreditNotesAmountAtom,
    post_payment_credit_notes_amount_atom: invoice.postPaymentCreditNotesAmountAtom,
    starting_balance_atom: invoice.startingBalanceAtom,
    ending_balance_atom: invoice.endingBalanceAtom,
    discount: invoice.discountId,
    payment_intent: paymentIntent ?? null,
    description: invoice.description,
    due_date: invoice.dueDate?.toISOString() ?? null,
    collection_method: invoice.collectionMethod,
    days_until_due: invoice.daysUntilDue,
    lines: lines.map(serializeLine),
    finalized_at: invoice.finalizedAt?.toISOString() ?? null,
    paid_at: invoice.paidAt?.toISOString() ?? null,
    voided_at: invoice.voidedAt?.toISOString() ?? null,
    marked_uncollectible_at: invoice.markedUncollectibleAt?.toISOString() ?? null,
    overdue_at: invoice.overdueAt?.toISOString() ?? null,
    attempt_count: invoice.attemptCount,
    next_payment_attempt: invoice.nextPaymentAttempt?.toISOString() ?? null,
    metadata: invoice.metadata,
    livemode,
    created: invoice.created.toISOString(),
    updated: invoice.updated.toISOString(),
  };
}
