import { needs } from "@/lib/permissions";
import type { CreditNoteObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import { InvoicePdf } from "@/lib/invoices/schema";
import { CreditNote, CreditNoteCreateInput, CreditNoteList, CreditNoteListQuery } from "./schema";

const tag = "Credit notes";

export const listCreditNotesOperation = defineOperation({
  operationId: "listCreditNotes",
  method: "GET",
  path: "/{account_id}/credit-notes",
  unscopedPath: "/credit-notes",
  summary: "List credit notes",
  description: "Newest first; filter `invoice`, `customer`.",
  tag,
  access: "secret",
  permission: needs("credit_notes", "read"),
  query: CreditNoteListQuery,
  response: { status: 200, description: "A page of credit notes.", schema: CreditNoteList },
});

export const createCreditNoteOperation = defineOperation({
  operationId: "createCreditNote",
  method: "POST",
  path: "/{account_id}/credit-notes",
  unscopedPath: "/credit-notes",
  summary: "Issue a credit note",
  description:
    "On an open or uncollectible invoice (pre-payment) it lowers `due_amount_atom` (to 0: the invoice is paid). On a paid invoice (post-payment) `refund_amount_atom` + `credit_amount_atom` + `out_of_band_amount_atom` must equal its total (none given: all credited to the customer's balance): the refund is a real refund of the invoice's payment (`refund.*`, `payment.refunded`, `invoice.refunded`), the credit a balance transaction. Σ of an invoice's credit notes never exceeds its total (422). Emits `credit_note.created`. A draft or void invoice is a 409; an invoice being modified is the retryable 409 `invoice_locked`.",
  tag,
  access: "secret",
  permission: needs("credit_notes", "write"),
  body: CreditNoteCreateInput,
  response: { status: 201, description: "The credit note.", schema: CreditNote },
  errors: [409, 415, 422],
});

export const previewCreditNoteOperation = defineOperation({
  operationId: "previewCreditNote",
  method: "POST",
  path: "/{account_id}/credit-notes/preview",
  unscopedPath: "/credit-notes/preview",
  summary: "Preview a credit note",
  description: "The credit note `createCreditNote` would issue with this body now (the same checks and amounts, the number it would take), stored nowhere: no event, no refund, and its id is not kept.",
  tag,
  access: "secret",
  permission: needs("credit_notes", "read"),
  body: CreditNoteCreateInput,
  response: { status: 200, description: "The credit note it would be.", schema: CreditNote },
  errors: [409, 415, 422],
});

export const getCreditNoteOperation = defineOperation({
  operationId: "getCreditNote",
  method: "GET",
  path: "/{account_id}/credit-notes/{credit_note_id}",
  unscopedPath: "/credit-notes/{credit_note_id}",
  summary: "Retrieve a credit note",
  tag,
  access: "secret",
  permission: needs("credit_notes", "read"),
  response: { status: 200, description: "The credit note.", schema: CreditNote },
  errors: [404],
});

export const voidCreditNoteOperation = defineOperation({
  operationId: "voidCreditNote",
  method: "POST",
  path: "/{account_id}/credit-notes/{credit_note_id}/void",
  unscopedPath: "/credit-notes/{credit_note_id}/void",
  summary: "Void a credit note",
  description:
    "Only a pre-payment credit note whose invoice is still open or uncollectible: the invoice's amount due goes back up by its total. Emits `credit_note.voided`. A post-payment or already void credit note is a 409.",
  tag,
  access: "secret",
  permission: needs("credit_notes", "write"),
  response: { status: 200, description: "The voided credit note.", schema: CreditNote },
  errors: [404, 409],
});

export const getCreditNotePdfOperation = defineOperation({
  operationId: "getCreditNotePdf",
  method: "GET",
  path: "/{account_id}/credit-notes/{credit_note_id}/pdf",
  unscopedPath: "/credit-notes/{credit_note_id}/pdf",
  summary: "Download a credit note's PDF",
  description: "The credit note as a document (`application/pdf`) in its invoice's language, as issued: the same bytes every time (`pdf_sha256`).",
  tag,
  access: "secret",
  permission: needs("credit_notes", "read"),
  response: { status: 200, description: "The PDF.", schema: InvoicePdf, contentType: "application/pdf" },
  errors: [404, 409],
});

/** The credit notes export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const CREDIT_NOTE_EXPORT: ExportColumns<CreditNoteObject> = {
  columns: fieldColumns<CreditNoteObject>([
    "id", "number", "invoice", "customer", "currency", "status", "type", "reason", "memo", "subtotal_atom", "discount_atom",
    "tax_atom", "total_amount_atom", "refund_amount_atom", "credit_amount_atom", "out_of_band_amount_atom", "total_taxes",
    "lines", "refunds", "customer_balance_transaction", "pdf_sha256", "voided_at", "livemode", "created", "updated",
  ]),
};

export const exportCreditNotesOperation = defineExportOperation(listCreditNotesOperation, { operationId: "exportCreditNotes", plural: "credit notes", columns: CREDIT_NOTE_EXPORT });

export const creditNoteOperations = [
  listCreditNotesOperation,
  exportCreditNotesOperation,
  createCreditNoteOperation,
  previewCreditNoteOperation,
  getCreditNoteOperation,
  voidCreditNoteOperation,
  getCreditNotePdfOperation,
];
