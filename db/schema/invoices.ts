import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgEnum, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { TaxAmount } from "@/lib/tax-rates/schema";
import type { InvoiceDocument } from "@/lib/invoices/schema";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { prices } from "./catalog";
import { INVOICE_STATUSES } from "@/lib/invoices/statuses";

export const invoiceStatusEnum = pgEnum("invoice_status", INVOICE_STATUSES);

/**
 * Invoices. Amounts are integer atoms: subtotal − discount = total; due = total − paid.
 * Totals are fixed at finalization (draft totals follow their lines).
 */
export const invoices = pgTable(
  "invoices",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** The subscription it bills, when there is one (subscriptions arrive later). */
    subscriptionId: text("subscription_id"),
    status: invoiceStatusEnum("status").notNull(),
    /**
     * `{invoice_prefix}-{sequence}`, given at finalization from invoice_number_sequences in the
     * same transaction (gapless per account; a sandbox is an account of its own). Null on drafts.
     */
    number: text("number"),
    /** The position in the account's sequence (what `number` ends with). */
    numberSequence: bigint("number_sequence", { mode: "number" }),
    /** What the document prints besides the invoice's fields, fixed at finalization (lib/invoices/pdf/document.ts). */
    document: jsonb("document").$type<InvoiceDocument>(),
    /** The SHA-256 (hex) of the PDF, fixed at finalization: every download has these bytes. */
    pdfSha256: text("pdf_sha256"),
    /** The SHA-256 of the PDF's paid version, rendered once when the invoice is paid (lib/invoices/pdf/issue.ts). */
    paidPdfSha256: text("paid_pdf_sha256"),
    /** The capability of the hosted invoice page (random, given at finalization). */
    hostedToken: text("hosted_token"),
    currency: text("currency").notNull(),
    subtotalAtom: bigint("subtotal_atom", { mode: "number" }).notNull().default(0),
    discountAtom: bigint("discount_atom", { mode: "number" }).notNull().default(0),
    /** Σ of the lines' taxes, inclusive and exclusive (set at finalization). */
    taxAtom: bigint("tax_atom", { mode: "number" }).notNull().default(0),
    /** Per tax rate: lib/tax-rates/compute.ts's TaxAmount sums. */
    totalTaxes: jsonb("total_taxes").$type<TaxAmount[]>().notNull().default([]),
    /** EU B2B across borders: every rate at 0 %, the buyer accounts for the VAT. */
    reverseCharge: boolean("reverse_charge").notNull().default(false),
    totalAmountAtom: bigint("total_amount_atom", { mode: "number" }).notNull().default(0),
    /** What credit grants paid at finalization (lib/credit-grants): Σ of `creditsApplied`, already out of the total. */
    creditsAppliedAtom: bigint("credits_applied_atom", { mode: "number" }).notNull().default(0),
    /** Per grant and line, as finalization applied them (the ledger is credit_grant_applications). */
    creditsApplied: jsonb("credits_applied").$type<{ credit_grant: string; line: string; amount_atom: number }[]>().notNull().default([]),
    dueAmountAtom: bigint("due_amount_atom", { mode: "number" }).notNull().default(0),
    paidAmountAtom: bigint("paid_amount_atom", { mode: "number" }).notNull().default(0),
    /** Σ of the issued credit notes made while it was open (they lowered the amount due). */
    prePaymentCreditNotesAmountAtom: bigint("pre_payment_credit_notes_amount_atom", { mode: "number" }).notNull().default(0),
    /** Σ of the issued credit notes made once it was paid (refunded, credited or settled out of band). */
    postPaymentCreditNotesAmountAtom: bigint("post_payment_credit_notes_amount_atom", { mode: "number" }).notNull().default(0),
    /** The customer's balance in the invoice's currency before and after finalization applied it; null on drafts. */
    startingBalanceAtom: bigint("starting_balance_atom", { mode: "number" }),
    endingBalanceAtom: bigint("ending_balance_atom", { mode: "number" }),
    /** The customer discount applied at finalization, if any. */
    discountId: text("discount_id"),
    description: text("description"),
    dueDate: time("due_date"),
    /** `send_invoice`: emailed at finalization and paid by the customer, never charged automatically. */
    collectionMethod: text("collection_method").$type<"charge_automatically" | "send_invoice">().notNull().default("charge_automatically"),
    /** `send_invoice` without a `due_date`: due this many days after finalization. */
    daysUntilDue: integer("days_until_due"),
    finalizedAt: time("finalized_at"),
    paidAt: time("paid_at"),
    voidedAt: time("voided_at"),
    markedUncollectibleAt: time("marked_uncollectible_at"),
    /** When `invoice.overdue` was emitted (an open invoice past its due date). */
    overdueAt: time("overdue_at"),
    /** Automatic collection: attempts made so far, and when dunning tries again (null: no retry scheduled). */
    attemptCount: integer("attempt_count").notNull().default(0),
    nextPaymentAttempt: time("next_payment_attempt"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("invoices_account_idx").on(t.accountId, t.created, t.id),
    index("invoices_customer_idx").on(t.customerId, t.created, t.id),
    index("invoices_account_status_idx").on(t.accountId, t.status, t.created, t.id),
    index("invoices_subscription_idx").on(t.subscriptionId),
    uniqueIndex("invoices_account_number_sequence_idx").on(t.accountId, t.numberSequence),
    uniqueIndex("invoices_hosted_token_idx").on(t.hostedToken),
    // The clock's due queries: open invoices by due date and by next dunning attempt.
    index("invoices_due_date_idx")
      .on(t.accountId, t.dueDate)
      .where(sql`${t.status} = 'open' and ${t.overdueAt} is null and ${t.dueDate} is not null`),
    index("invoices_next_attempt_idx")
      .on(t.accountId, t.nextPaymentAttempt)
      .where(sql`${t.status} = 'open' and ${t.nextPaymentAttempt} is not null`),
    // Money invariants kept by the database whatever path writes (migration 0035; the sum of the
    // issued credit notes' own rows ≤ total is that migration's trigger, which a CHECK cannot express).
    check("invoices_due_amount_non_negative", sql`${t.dueAmountAtom} >= 0`),
    check("invoices_credit_notes_within_total", sql`${t.prePaymentCreditNotesAmountAtom} + ${t.postPaymentCreditNotesAmountAtom} <= ${t.totalAmountAtom}`),
  ],
);

export const invoiceLines = pgTable(
  "invoice_lines",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    priceId: text("price_id").references(() => prices.id),
    description: text("description"),
    /** bigint: a metered line's quantity is the period's aggregated usage (lib/usage/billing.ts). */
    quantity: bigint("quantity", { mode: "number" }).notNull(),
    unitAmountAtom: bigint("unit_amount_atom", { mode: "number" }).notNull(),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    /** The rates the line names (`txr_…`); none: the customer's, else the account's default at finalization. */
    taxRateIds: jsonb("tax_rate_ids").$type<string[]>().notNull().default([]),
    /** Set at finalization: the line's share of the discount and its taxes. */
    discountAtom: bigint("discount_atom", { mode: "number" }).notNull().default(0),
    taxAmounts: jsonb("tax_amounts").$type<TaxAmount[]>().notNull().default([]),
    /** The range a metered line bills (its usage's); null: the invoice's period (licensed lines, billed in advance). */
    periodStart: time("period_start"),
    periodEnd: time("period_end"),
    created: createdAt(),
  },
  (t) => [index("invoice_lines_invoice_idx").on(t.invoiceId, t.created, t.id)],
);

/**
 * The last invoice number given per account. Finalizing increments its row with
 * `insert … on conflict do update … returning` in the finalizing transaction: the row lock
 * serializes concurrent finalizers of one account until they commit, and a rolled-back
 * finalization gives its number back, so numbers are gapless.
 */
export const invoiceNumberSequences = pgTable("invoice_number_sequences", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  lastValue: bigint("last_value", { mode: "number" }).notNull(),
});
