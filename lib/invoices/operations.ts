import { needs } from "@/lib/permissions";
import type { InvoiceLineObject, InvoiceObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import { HostedInvoicePayInput, Invoice, InvoiceCreateInput, InvoiceLineInput, InvoiceList, InvoiceListQuery, InvoicePayInput, InvoicePdf, InvoicePdfQuery } from "./schema";

const tag = "Invoices";
const LOCKED = "A 409 `invoice_locked` (retryable, nothing changed) while another operation modifies the invoice.";

export const listInvoicesOperation = defineOperation({
  operationId: "listInvoices",
  method: "GET",
  path: "/{account_id}/invoices",
  unscopedPath: "/invoices",
  summary: "List invoices",
  description: "Invoices of the account, newest first; filters `customer` and `status`.",
  tag,
  access: "secret",
  permission: needs("invoices", "read"),
  query: InvoiceListQuery,
  response: { status: 200, description: "A page of invoices.", schema: InvoiceList },
});

export const createInvoiceOperation = defineOperation({
  operationId: "createInvoice",
  method: "POST",
  path: "/{account_id}/invoices",
  unscopedPath: "/invoices",
  summary: "Create a draft invoice",
  description:
    "A draft for a customer of this account, optionally with lines (an active price in the invoice's currency, or `unit_amount_atom` with `description`). `collection_method: send_invoice` (with `days_until_due`, default 30, or a `due_date`) emails it at finalization and never charges it automatically. Emits `invoice.created`.",
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  body: InvoiceCreateInput,
  response: { status: 201, description: "The draft invoice.", schema: Invoice },
  errors: [415, 422],
});

export const getInvoiceOperation = defineOperation({
  operationId: "getInvoice",
  method: "GET",
  path: "/{account_id}/invoices/{invoice_id}",
  unscopedPath: "/invoices/{invoice_id}",
  summary: "Retrieve an invoice",
  tag,
  access: "secret",
  permission: needs("invoices", "read"),
  response: { status: 200, description: "The invoice.", schema: Invoice },
  errors: [404],
});

export const addInvoiceLineOperation = defineOperation({
  operationId: "addInvoiceLine",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/lines",
  unscopedPath: "/invoices/{invoice_id}/lines",
  summary: "Add a line to a draft invoice",
  description: `Draft totals follow the lines. Draft edits emit no event (they are recorded by \`invoice.finalized\`). 409 unless the invoice is a draft. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  body: InvoiceLineInput,
  response: { status: 200, description: "The invoice with the new line.", schema: Invoice },
  errors: [404, 409, 415, 422],
});

export const removeInvoiceLineOperation = defineOperation({
  operationId: "removeInvoiceLine",
  method: "DELETE",
  path: "/{account_id}/invoices/{invoice_id}/lines/{line_id}",
  unscopedPath: "/invoices/{invoice_id}/lines/{line_id}",
  summary: "Remove a line from a draft invoice",
  description: `No event (see adding a line). 409 unless the invoice is a draft. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  response: { status: 200, description: "The invoice without the line.", schema: Invoice },
  errors: [404, 409],
});

export const finalizeInvoiceOperation = defineOperation({
  operationId: "finalizeInvoice",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/finalize",
  unscopedPath: "/invoices/{invoice_id}/finalize",
  summary: "Finalize a draft invoice",
  description: `Draft → open: applies the customer's active discount, fixes the totals (due = total). Emits \`invoice.finalized\`; a total of 0 is paid at once (\`invoice.paid\`, \`invoice.payment_succeeded\`). A \`send_invoice\` invoice gets its \`due_date\` (now + \`days_until_due\`, unless given) and its \`invoice\` email in the same transaction. 409 for an invoice without lines or not in draft. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  response: { status: 200, description: "The finalized invoice.", schema: Invoice },
  errors: [404, 409],
});

export const payInvoiceOperation = defineOperation({
  operationId: "payInvoice",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/pay",
  unscopedPath: "/invoices/{invoice_id}/pay",
  summary: "Pay an invoice (with a sandbox payment method, or out of band)",
  description: `Give exactly one of \`paid_out_of_band: true\` and \`payment_method\` (422 otherwise). Out of band: open or uncollectible → paid (due 0, paid = total; \`invoice.paid\` then \`invoice.payment_succeeded\`). With a payment method, a payment intent for the due amount is created and confirmed in the same transaction; the answer is always the invoice (200) and \`payment_intent\` names the intent: succeeded → paid (as out of band); declined → still open, \`invoice.payment_failed\` (the intent's \`last_payment_error\` says why); requires action → still open, \`invoice.payment_action_required\` (confirming the intent later pays the invoice); partially funded → still open, paid grows and due shrinks by the amount received. Sandbox methods work only on sandbox accounts (422 on live ones); other methods (\`pm_…\`) are charged off-session by the account's connected processor (docs/payments.md), 503 (retryable, nothing changed) when it cannot be reached. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  body: InvoicePayInput,
  response: { status: 200, description: "The invoice after the payment attempt (paid, or still open if the payment did not complete).", schema: Invoice },
  errors: [404, 409, 415, 422, 503],
});

export const voidInvoiceOperation = defineOperation({
  operationId: "voidInvoice",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/void",
  unscopedPath: "/invoices/{invoice_id}/void",
  summary: "Void an invoice",
  description: `Open or uncollectible → void. Emits \`invoice.voided\`. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  response: { status: 200, description: "The voided invoice.", schema: Invoice },
  errors: [404, 409],
});

export const markInvoiceUncollectibleOperation = defineOperation({
  operationId: "markInvoiceUncollectible",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/mark-uncollectible",
  unscopedPath: "/invoices/{invoice_id}/mark-uncollectible",
  summary: "Mark an invoice uncollectible",
  description: `Open → uncollectible; it may still be paid out of band or voided. Emits \`invoice.marked_uncollectible\`. ${LOCKED}`,
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  response: { status: 200, description: "The uncollectible invoice.", schema: Invoice },
  errors: [404, 409],
});

export const getInvoicePdfOperation = defineOperation({
  operationId: "getInvoicePdf",
  method: "GET",
  path: "/{account_id}/invoices/{invoice_id}/pdf",
  unscopedPath: "/invoices/{invoice_id}/pdf",
  summary: "Download an invoice's PDF",
  description:
    "The invoice as a document (`application/pdf`), in the customer's `preferred_locale` (else the account's `default_locale`): as it was issued (SHA-256 `pdf_sha256`) until it is paid, then its paid version (the \"Paid on\" mark, the amount paid, nothing due; SHA-256 `paid_pdf_sha256`). Each version is the same bytes at every download; `version` asks for one (`paid` before the invoice has one is a 409). A draft is a 409.",
  tag,
  access: "secret",
  permission: needs("invoices", "read"),
  query: InvoicePdfQuery,
  response: { status: 200, description: "The PDF.", schema: InvoicePdf, contentType: "application/pdf" },
  errors: [404, 409],
});

export const getHostedInvoicePdfOperation = defineOperation({
  operationId: "getHostedInvoicePdf",
  method: "GET",
  path: "/hosted-invoices/{token}/pdf",
  summary: "Download an invoice's PDF from its hosted page",
  description: "The same PDF as `getInvoicePdf` (the paid version once paid; `version` as there), for whoever holds the `hosted_invoice_url`'s token (no authentication). A wrong token is a 404.",
  tag,
  access: "public",
  query: InvoicePdfQuery,
  response: { status: 200, description: "The PDF.", schema: InvoicePdf, contentType: "application/pdf" },
  errors: [404, 409],
});

export const payHostedInvoiceOperation = defineOperation({
  operationId: "payHostedInvoice",
  method: "POST",
  path: "/hosted-invoices/{token}/pay",
  summary: "Pay an open invoice from its hosted page",
  description:
    "For whoever holds the `hosted_invoice_url`'s token: pays the open invoice with a sandbox payment method, as `POST /invoices/{id}/pay` does (sandbox accounts only; events carry actor `customer`). A wrong token is a 404; an invoice that is not open, a 409.",
  tag,
  access: "public",
  body: HostedInvoicePayInput,
  response: { status: 200, description: "The invoice after the attempt.", schema: Invoice },
  errors: [404, 409, 415, 422],
});

/**
 * The invoices export's CSV columns (docs/api.md, "Exports"): one row per line, carrying its
 * invoice's columns then the line's (`line_…`); stable, appended to, never reordered.
 */
const INVOICE_EXPORT: ExportColumns<InvoiceObject> = {
  columns: fieldColumns<InvoiceObject>([
    "id", "number", "customer", "subscription", "status", "currency", "customer_name", "customer_email", "description",
    "collection_method", "days_until_due", "due_date", "subtotal_atom", "discount_atom", "tax_atom", "total_amount_atom",
    "due_amount_atom", "paid_amount_atom", "pre_payment_credit_notes_amount_atom", "post_payment_credit_notes_amount_atom",
    "starting_balance_atom", "ending_balance_atom", "reverse_charge", "total_taxes", "discount", "payment_intent",
    "attempt_count", "next_payment_attempt", "finalized_at", "paid_at", "voided_at", "marked_uncollectible_at", "overdue_at",
    "pdf_sha256", "paid_pdf_sha256", "metadata", "livemode", "created", "updated",
  ]),
  lines: {
    of: (invoice) => invoice.lines,
    columns: fieldColumns<InvoiceLineObject>(
      ["id", "price", "description", "quantity", "unit_amount_atom", "amount_atom", "discount_atom", "tax_rates", "tax_amounts"],
      "line_",
    ),
  },
};

export const exportInvoicesOperation = defineExportOperation(listInvoicesOperation, { operationId: "exportInvoices", plural: "invoices", columns: INVOICE_EXPORT });

export const invoiceOperations = [
  listInvoicesOperation,
  exportInvoicesOperation,
  createInvoiceOperation,
  getInvoiceOperation,
  addInvoiceLineOperation,
  removeInvoiceLineOperation,
  finalizeInvoiceOperation,
  payInvoiceOperation,
  voidInvoiceOperation,
  markInvoiceUncollectibleOperation,
  getInvoicePdfOperation,
  getHostedInvoicePdfOperation,
  payHostedInvoiceOperation,
];
