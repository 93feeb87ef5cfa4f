import type { creditNotes } from "@/db/schema";
import { publicBaseUrl } from "@/lib/config";
import { operationPath } from "@/lib/operation-paths";
import type { CreditNoteObject } from "./schema";

export type CreditNoteRow = typeof creditNotes.$inferSelect;

export function serializeCreditNote(row: CreditNoteRow, livemode: boolean, options: { preview?: boolean } = {}): CreditNoteObject {
  return {
    id: row.id,
    object: "credit_note",
    number: row.number,
    invoice: row.invoiceId,
    customer: row.customerId,
    currency: row.currency,
    status: row.status,
    type: row.type,
    reason: row.reason,
    memo: row.memo,
    lines: row.lines,
    subtotal_atom: row.subtotalAtom,
    discount_atom: row.discountAtom,
    tax_atom: row.taxAtom,
    total_taxes: row.totalTaxes,
    total_amount_atom: row.totalAmountAtom,
    refund_amount_atom: row.refundAmountAtom,
    credit_amount_atom: row.creditAmountAtom,
    out_of_band_amount_atom: row.outOfBandAmountAtom,
    refunds: row.refundIds,
    customer_balance_transaction: row.customerBalanceTransactionId,
    pdf: options.preview ? null : `${publicBaseUrl()}${operationPath("getCreditNotePdfForTokenAccount", { credit_note_id: row.id })}`,
    pdf_sha256: row.pdfSha256,
    voided_at: row.voidedAt?.toISOString() ?? null,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
