import { bigint, index, jsonb, pgTable, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { TaxAmount } from "@/lib/tax-rates/schema";
import { BALANCE_TRANSACTION_TYPES } from "@/lib/customer-balance/statuses";
import { CREDIT_NOTE_REASONS, CREDIT_NOTE_STATUSES, CREDIT_NOTE_TYPES } from "@/lib/credit-notes/statuses";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { invoices } from "./invoices";

/** One credited line of a credit note, as computed at issue (lib/credit-notes/compute.ts). */
export type CreditNoteLineRecord = {
  invoice_line: string | null;
  description: string | null;
  quantity: number | null;
  amount_atom: number;
  discount_atom: number;
  tax_amounts: TaxAmount[];
  total_amount_atom: number;
};

/**
 * Credit notes (Stripe's CreditNote): a document that reduces an invoice. Pre-payment (open
 * invoice): its amount due goes down. Post-payment (paid invoice): the total is split into a
 * refund, a credit to the customer's balance and an amount settled out of band. Numbered
 * `{invoice_prefix}-CN-{sequence}`, gapless per account (credit_note_number_sequences).
 */
export const creditNotes = pgTable(
  "credit_notes",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    number: text("number").notNull(),
    numberSequence: bigint("number_sequence", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: CREDIT_NOTE_STATUSES }).notNull(),
    type: text("type", { enum: CREDIT_NOTE_TYPES }).notNull(),
    reason: text("reason", { enum: CREDIT_NOTE_REASONS }).notNull(),
    memo: text("memo"),
    lines: jsonb("lines").$type<CreditNoteLineRecord[]>().notNull(),
    subtotalAtom: bigint("subtotal_atom", { mode: "number" }).notNull(),
    discountAtom: bigint("discount_atom", { mode: "number" }).notNull(),
    taxAtom: bigint("tax_atom", { mode: "number" }).notNull(),
    totalTaxes: jsonb("total_taxes").$type<TaxAmount[]>().notNull(),
    totalAmountAtom: bigint("total_amount_atom", { mode: "number" }).notNull(),
    refundAmountAtom: bigint("refund_amount_atom", { mode: "number" }).notNull(),
    creditAmountAtom: bigint("credit_amount_atom", { mode: "number" }).notNull(),
    outOfBandAmountAtom: bigint("out_of_band_amount_atom", { mode: "number" }).notNull(),
    refundIds: jsonb("refund_ids").$type<string[]>().notNull().default([]),
    customerBalanceTransactionId: text("customer_balance_transaction_id"),
    pdfSha256: text("pdf_sha256"),
    /** 1: issued before the parties' addresses and VAT ids were printed (rendered so forever, for its pdf_sha256); 2: with them. */
    pdfLayout: smallint("pdf_layout").notNull().default(1),
    voidedAt: time("voided_at"),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("credit_notes_account_idx").on(t.accountId, t.created, t.id),
    index("credit_notes_invoice_idx").on(t.invoiceId, t.created, t.id),
    index("credit_notes_customer_idx").on(t.customerId, t.created, t.id),
    uniqueIndex("credit_notes_account_number_sequence_idx").on(t.accountId, t.numberSequence),
  ],
);

/** The last credit note number given per account (the invoice numbers' technique, its own sequence). */
export const creditNoteNumberSequences = pgTable("credit_note_number_sequences", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  lastValue: bigint("last_value", { mode: "number" }).notNull(),
});

/**
 * The customer balance's ledger: every change of `customers.balances[currency]` is one row, so
 * the rows of a customer and currency sum to the balance. Positive amounts credit the customer.
 */
export const customerBalanceTransactions = pgTable(
  "customer_balance_transactions",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    currency: text("currency").notNull(),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    endingBalanceAtom: bigint("ending_balance_atom", { mode: "number" }).notNull(),
    type: text("type", { enum: BALANCE_TRANSACTION_TYPES }).notNull(),
    description: text("description"),
    invoiceId: text("invoice_id"),
    creditNoteId: text("credit_note_id"),
    /** A `proration` credit: the change request (`scr_…`) whose net decrease it credits. */
    changeRequestId: text("change_request_id"),
    created: createdAt(),
  },
  (t) => [index("customer_balance_transactions_customer_idx").on(t.customerId, t.created, t.id)],
);
