import type postgres from "postgres";

/*
 * What the money audit reads of one account: the stored rows and the event trail, each in one
 * set-based statement (a dozen statements whatever the account's size), inside one read-only
 * repeatable-read transaction so that rows and events are one consistent snapshot.
 */

type Sql = postgres.Sql | postgres.TransactionSql;

/** A tax as rows and events store it (lib/tax-rates/schema.ts's TaxAmount). */
export type TaxJson = { tax_rate: string; amount_atom: number; inclusive: boolean };

/** A credited line as credit notes store it (db/schema/credit-notes.ts's CreditNoteLineRecord). */
export type CreditNoteLineJson = {
  invoice_line: string | null;
  amount_atom: number;
  discount_atom: number;
  tax_amounts: TaxJson[];
  total_amount_atom: number;
};

export type InvoiceRecord = {
  id: string;
  customer: string;
  status: string;
  currency: string;
  subtotal_atom: number;
  discount_atom: number;
  tax_atom: number;
  total_taxes: TaxJson[];
  total_amount_atom: number;
  /** What credit grants paid at finalization, and Σ of the grants' ledger rows for the invoice. */
  total_credits_applied_atom: number;
  credit_grant_ledger_atom: number;
  due_amount_atom: number;
  paid_amount_atom: number;
  pre_payment_credit_notes_amount_atom: number;
  post_payment_credit_notes_amount_atom: number;
  starting_balance_atom: number | null;
  ending_balance_atom: number | null;
  discount: string | null;
};

export type InvoiceLineRecord = { id: string; invoice: string; quantity: number; amount_atom: number; discount_atom: number; tax_amounts: TaxJson[] };

export type CreditNoteRecord = {
  id: string;
  invoice: string;
  customer: string;
  status: string;
  type: string;
  lines: CreditNoteLineJson[];
  subtotal_atom: number;
  discount_atom: number;
  tax_atom: number;
  total_taxes: TaxJson[];
  total_amount_atom: number;
  refund_amount_atom: number;
  credit_amount_atom: number;
  out_of_band_amount_atom: number;
  refunds: string[];
  customer_balance_transaction: string | null;
};

export type CustomerRecord = { id: string; balances: Record<string, number> };

export type BalanceTransactionRecord = {
  id: string;
  customer: string;
  currency: string;
  amount_atom: number;
  ending_balance_atom: number;
  type: string;
  invoice: string | null;
  credit_note: string | null;
};

export type PaymentIntentRecord = {
  id: string;
  invoice: string | null;
  amount_atom: number;
  amount_received_atom: number;
  amount_capturable_atom: number;
  status: string;
};

export type PaymentRecord = { id: string; payment_intent: string; amount_atom: number; amount_refunded_atom: number; status: string };

export type RefundRecord = { id: string; payment: string; amount_atom: number; status: string };

/** An event as the audit reads it: its id (creation order), type, aggregate and `data` (the object's state after the change). */
export type EventRecord = { id: string; type: string; aggregate_id: string; object: Record<string, unknown> };

export type AccountMoney = {
  invoices: InvoiceRecord[];
  lines: InvoiceLineRecord[];
  creditNotes: CreditNoteRecord[];
  customers: CustomerRecord[];
  balanceTransactions: BalanceTransactionRecord[];
  paymentIntents: PaymentIntentRecord[];
  payments: PaymentRecord[];
  refunds: RefundRecord[];
  /** The latest event of each invoice, credit note, payment intent, payment and refund (`invoice.upcoming` previews left out). */
  latest: EventRecord[];
  /** Every event of these kinds, oldest first: they are folded, not just compared. */
  creditNoteEvents: EventRecord[];
  balanceTransactionEvents: EventRecord[];
  paymentSucceededEvents: EventRecord[];
  discountEvents: EventRecord[];
  /** Each invoice's `invoice.finalized` event (its id places the finalization among the discount's events). */
  finalizedEvents: EventRecord[];
  eventCount: number;
};

/** The aggregates whose latest event state must equal their row. */
const SNAPSHOT_AGGREGATES = ["invoice", "credit_note", "payment_intent", "payment", "refund"];

/** bigint columns arrive as strings (postgres.js keeps int8 exact); atoms stay below 2^53. */
const atoms = (value: unknown): number => Number(value);
const atomsOrNull = (value: unknown): number | null => (value === null ? null : Number(value));

/** Events in creation order: ids are time-ordered (lib/ids.ts), compared bytewise. */
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function events(rows: readonly { id: string; type: string; aggregate_id: string; data: Record<string, unknown> }[]): EventRecord[] {
  return rows.map((row) => ({ id: row.id, type: row.type, aggregate_id: row.aggregate_id, object: row.data })).sort(byId);
}

export async function accountExists(sql: Sql, accountId: string): Promise<boolean> {
  const rows = await sql`select 1 from accounts where id = ${accountId}`;
  return rows.length > 0;
}

export async function loadAccountMoney(sql: Sql, accountId: string): Promise<AccountMoney> {
  const [invoiceRows, lineRows, noteRows, customerRows, ledgerRows, intentRows, paymentRows, refundRows] = await Promise.all([
    sql`select id, customer_id, status, currency, subtotal_atom, discount_atom, tax_atom, total_taxes, total_amount_atom,
          due_amount_atom, paid_amount_atom, pre_payment_credit_notes_amount_atom, post_payment_credit_notes_amount_atom,
          starting_balance_atom, ending_balance_atom, discount_id, credits_applied_atom,
          (select coalesce(sum(a.amount_atom), 0) from credit_grant_applications a where a.invoice_id = invoices.id) as credit_grant_ledger_atom
        from invoices where account_id = ${accountId}`,
    sql`select id, invoice_id, quantity, amount_atom, discount_atom, tax_amounts from invoice_lines where account_id = ${accountId}`,
    sql`select id, invoice_id, customer_id, status, type, lines, subtotal_atom, discount_atom, tax_atom, total_taxes, total_amount_atom,
          refund_amount_atom, credit_amount_atom, out_of_band_amount_atom, refund_ids, customer_balance_transaction_id
        from credit_notes where account_id = ${accountId}`,
    sql`select id, balances from customers where account_id = ${accountId}`,
    sql`select id, customer_id, currency, amount_atom, ending_balance_atom, type, invoice_id, credit_note_id
        from customer_balance_transactions where account_id = ${accountId}`,
    sql`select id, invoice_id, amount_atom, amount_received_atom, amount_capturable_atom, status from payment_intents where account_id = ${accountId}`,
    sql`select id, payment_intent_id, amount_atom, amount_refunded_atom, status from payments where account_id = ${accountId}`,
    sql`select id, payment_id, amount_atom, status from refunds where account_id = ${accountId}`,
  ]);
  const latest = await sql<{ id: string; type: string; aggregate_id: string; data: Record<string, unknown> }[]>`
    select id, type, aggregate_id, data from events where id in (
      select distinct on (aggregate_id) id from events
      where account_id = ${accountId} and aggregate_type in ${sql(SNAPSHOT_AGGREGATES)} and type <> 'invoice.upcoming'
      order by aggregate_id, sequence desc)`;
  const folded = await sql<{ id: string; type: string; aggregate_id: string; data: Record<string, unknown> }[]>`
    select id, type, aggregate_id, data from events
    where account_id = ${accountId}
      and (aggregate_type in ('credit_note', 'customer_balance_transaction', 'customer_discount') or type = 'payment.succeeded')`;
  const finalized = await sql<{ id: string; type: string; aggregate_id: string }[]>`
    select id, type, aggregate_id from events where account_id = ${accountId} and type = 'invoice.finalized'`;
  const [{ n: eventCount } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from events where account_id = ${accountId}`;

  const foldedEvents = events(folded);
  const of = (predicate: (event: EventRecord) => boolean) => foldedEvents.filter(predicate);
  return {
    invoices: invoiceRows.map((row) => ({
      id: row.id,
      customer: row.customer_id,
      status: row.status,
      currency: row.currency,
      subtotal_atom: atoms(row.subtotal_atom),
      discount_atom: atoms(row.discount_atom),
      tax_atom: atoms(row.tax_atom),
      total_taxes: row.total_taxes,
      total_amount_atom: atoms(row.total_amount_atom),
      total_credits_applied_atom: atoms(row.credits_applied_atom),
      credit_grant_ledger_atom: atoms(row.credit_grant_ledger_atom),
      due_amount_atom: atoms(row.due_amount_atom),
      paid_amount_atom: atoms(row.paid_amount_atom),
      pre_payment_credit_notes_amount_atom: atoms(row.pre_payment_credit_notes_amount_atom),
      post_payment_credit_notes_amount_atom: atoms(row.post_payment_credit_notes_amount_atom),
      starting_balance_atom: atomsOrNull(row.starting_balance_atom),
      ending_balance_atom: atomsOrNull(row.ending_balance_atom),
      discount: row.discount_id,
    })),
    lines: lineRows.map((row) => ({
      id: row.id,
      invoice: row.invoice_id,
      quantity: atoms(row.quantity),
      amount_atom: atoms(row.amount_atom),
      discount_atom: atoms(row.discount_atom),
      tax_amounts: row.tax_amounts,
    })),
    creditNotes: noteRows.map((row) => ({
      id: row.id,
      invoice: row.invoice_id,
      customer: row.customer_id,
      status: row.status,
      type: row.type,
      lines: row.lines,
      subtotal_atom: atoms(row.subtotal_atom),
      discount_atom: atoms(row.discount_atom),
      tax_atom: atoms(row.tax_atom),
      total_taxes: row.total_taxes,
      total_amount_atom: atoms(row.total_amount_atom),
      refund_amount_atom: atoms(row.refund_amount_atom),
      credit_amount_atom: atoms(row.credit_amount_atom),
      out_of_band_amount_atom: atoms(row.out_of_band_amount_atom),
      refunds: row.refund_ids,
      customer_balance_transaction: row.customer_balance_transaction_id,
    })),
    customers: customerRows.map((row) => ({ id: row.id, balances: row.balances })),
    balanceTransactions: ledgerRows.map((row) => ({
      id: row.id,
      customer: row.customer_id,
      currency: row.currency,
      amount_atom: atoms(row.amount_atom),
      ending_balance_atom: atoms(row.ending_balance_atom),
      type: row.type,
      invoice: row.invoice_id,
      credit_note: row.credit_note_id,
    })),
    paymentIntents: intentRows.map((row) => ({
      id: row.id,
      invoice: row.invoice_id,
      amount_atom: atoms(row.amount_atom),
      amount_received_atom: atoms(row.amount_received_atom),
      amount_capturable_atom: atoms(row.amount_capturable_atom),
      status: row.status,
    })),
    payments: paymentRows.map((row) => ({
      id: row.id,
      payment_intent: row.payment_intent_id,
      amount_atom: atoms(row.amount_atom),
      amount_refunded_atom: atoms(row.amount_refunded_atom),
      status: row.status,
    })),
    refunds: refundRows.map((row) => ({ id: row.id, payment: row.payment_id, amount_atom: atoms(row.amount_atom), status: row.status })),
    latest: events(latest),
    creditNoteEvents: of((event) => event.type.startsWith("credit_note.")),
    balanceTransactionEvents: of((event) => event.type === "customer.balance_transaction.created"),
    paymentSucceededEvents: of((event) => event.type === "payment.succeeded"),
    discountEvents: of((event) => event.type.startsWith("customer.discount.")),
    finalizedEvents: events(finalized.map((row) => ({ ...row, data: {} }))),
    eventCount,
  };
}
