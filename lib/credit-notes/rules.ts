/*
 * What a credit note's status (and its invoice's) allows, declared once. Pure (values only): the
 * service's 409 guards read it, and so does the dashboard's Void button
 * (components/invoices/invoice-credit-notes.tsx).
 */
import { isOutstanding } from "@/lib/invoices/rules";

export type CreditNoteFacts = {
  status: string;
  type: string;
  /** The status of the invoice it credits. */
  invoiceStatus: string;
};

/**
 * Why voiding is refused, or null when it is allowed: only an issued pre-payment credit note of an
 * invoice still open or uncollectible (a post-payment one moved money; a paid or void invoice keeps
 * what it was credited).
 */
export function voidRefusal(note: CreditNoteFacts): "already_void" | "post_payment" | "invoice_settled" | null {
  if (note.status === "void") return "already_void";
  if (note.type === "post_payment") return "post_payment";
  if (!isOutstanding(note.invoiceStatus)) return "invoice_settled";
  return null;
}

export const canVoidCreditNote = (note: CreditNoteFacts): boolean => voidRefusal(note) === null;

/** Every action with whether the credit note allows it: what the dashboard renders from. */
export const creditNoteActions = (note: CreditNoteFacts) => ({ void: canVoidCreditNote(note) });
