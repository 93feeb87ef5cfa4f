/*
 * What each invoice status allows, declared once. Pure (values only, no server imports): the
 * services' 409 guards read it (core.ts assertStatus, settle.ts, payment-hooks.ts, credit notes),
 * and so do the dashboard's buttons (components/invoices), which show an action exactly when the
 * API accepts it (tests/api/status-actions.test.ts, tests/unit/status-buttons.test.ts).
 */
import type { InvoiceStatus } from "./statuses";

/** Finalized and not settled: it can still be paid, voided or credited before payment. */
export const OUTSTANDING_INVOICE_STATUSES: readonly InvoiceStatus[] = ["open", "uncollectible"];

/** The statuses each action starts from. */
export const INVOICE_ACTION_FROM = {
  finalize: ["draft"],
  /** The lines change only while a draft. */
  editLines: ["draft"],
  pay: OUTSTANDING_INVOICE_STATUSES,
  void: OUTSTANDING_INVOICE_STATUSES,
  markUncollectible: ["open"],
  /** Open or uncollectible: a pre-payment credit note; paid: a post-payment one. */
  credit: [...OUTSTANDING_INVOICE_STATUSES, "paid"],
  /** Emailed to the customer (again) on demand: any finalized invoice that is not void. */
  send: [...OUTSTANDING_INVOICE_STATUSES, "paid"],
} as const satisfies Record<string, readonly InvoiceStatus[]>;

export type InvoiceAction = keyof typeof INVOICE_ACTION_FROM;

/** The facts of an invoice the rules need, whether read from a row or from the API's object. */
export type InvoiceFacts = {
  status: string;
  /** Paid so far (a partially funded payment): an invoice with a payment cannot be voided. */
  paidAmountAtom: number;
  /** A draft without lines cannot be finalized. */
  lineCount: number;
  /** Total less the credit notes already issued: nothing left, nothing to credit (422). */
  creditableAtom: number;
};

const from = (action: InvoiceAction, status: string) => (INVOICE_ACTION_FROM[action] as readonly string[]).includes(status);

export const isOutstanding = (status: string): boolean => (OUTSTANDING_INVOICE_STATUSES as readonly string[]).includes(status);

export const canFinalize = (invoice: Pick<InvoiceFacts, "status" | "lineCount">): boolean => from("finalize", invoice.status) && invoice.lineCount > 0;
export const canEditLines = (invoice: Pick<InvoiceFacts, "status">): boolean => from("editLines", invoice.status);
export const canPay = (invoice: Pick<InvoiceFacts, "status">): boolean => from("pay", invoice.status);
export const canVoid = (invoice: Pick<InvoiceFacts, "status" | "paidAmountAtom">): boolean => from("void", invoice.status) && invoice.paidAmountAtom === 0;
export const canMarkUncollectible = (invoice: Pick<InvoiceFacts, "status">): boolean => from("markUncollectible", invoice.status);
export const canSend = (invoice: Pick<InvoiceFacts, "status">): boolean => from("send", invoice.status);
export const canCredit = (invoice: Pick<InvoiceFacts, "status" | "creditableAtom">): boolean => from("credit", invoice.status) && invoice.creditableAtom > 0;

/** Which kind of credit note the invoice's status takes; null: none (409). */
export function creditNoteTypeFor(status: string): "pre_payment" | "post_payment" | null {
  if (status === "paid") return "post_payment";
  return isOutstanding(status) ? "pre_payment" : null;
}

/** Every action with whether the invoice allows it: what the dashboard renders from. */
export function invoiceActions(invoice: InvoiceFacts): Record<Exclude<InvoiceAction, "editLines">, boolean> {
  return {
    finalize: canFinalize(invoice),
    pay: canPay(invoice),
    void: canVoid(invoice),
    markUncollectible: canMarkUncollectible(invoice),
    credit: canCredit(invoice),
    send: canSend(invoice),
  };
}

/** The facts of the API's invoice object (the dashboard's shape). */
export function invoiceFacts(invoice: {
  status: string;
  paid_amount_atom: number;
  lines: readonly unknown[];
  total_amount_atom: number;
  pre_payment_credit_notes_amount_atom: number;
  post_payment_credit_notes_amount_atom: number;
}): InvoiceFacts {
  return {
    status: invoice.status,
    paidAmountAtom: invoice.paid_amount_atom,
    lineCount: invoice.lines.length,
    creditableAtom: invoice.total_amount_atom - invoice.pre_payment_credit_notes_amount_atom - invoice.post_payment_credit_notes_amount_atom,
  };
}
