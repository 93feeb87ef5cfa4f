import type { AccountMoney, EventRecord, InvoiceRecord, TaxJson } from "./load";

/*
 * The money audit's rules, pure (no database): what the event trail and the billing rules say each
 * stored amount must be (docs/billing.md, "Auditing the money"; docs/credit-notes-and-balance.md).
 * The arithmetic is written out here on purpose instead of calling lib/: an audit that reused the
 * code it audits would agree with its mistakes.
 */

export type Difference = {
  /** The object whose stored value differs: `in_…`, `il_…`, `cn_…`, `cus_…`, `cbt_…`, `pi_…`, `py_…`, `re_…`. */
  object: string;
  /** The field, as the API and the events name it (`due_amount_atom`, `balances.eur`, `status`…). */
  field: string;
  expected: string | number | null;
  found: string | number | null;
  /** Which rule says so, for the reader (the latest event, an invoice's arithmetic, the ledger…). */
  rule: string;
};

type Value = string | number | null;

class Differences {
  readonly list: Difference[] = [];
  check(object: string, field: string, expected: Value, found: Value, rule: string): void {
    if (expected !== found) this.list.push({ object, field, expected, found, rule });
  }
  /** A bound (found ≤ most): the expected value is written as the bound. */
  atMost(object: string, field: string, most: number, found: number, rule: string): void {
    if (found > most) this.list.push({ object, field, expected: `at most ${most}`, found, rule });
  }
}

const sum = (values: Iterable<number>) => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};
const taxOf = (taxes: readonly TaxJson[]) => sum(taxes.map((tax) => tax.amount_atom));
const exclusiveTaxOf = (taxes: readonly TaxJson[]) => sum(taxes.filter((tax) => !tax.inclusive).map((tax) => tax.amount_atom));

/** Per rate, the sum of the taxes' amounts. */
function perRate(taxes: Iterable<TaxJson>): Map<string, number> {
  const totals = new Map<string, number>();
  for (const tax of taxes) totals.set(tax.tax_rate, (totals.get(tax.tax_rate) ?? 0) + tax.amount_atom);
  return totals;
}

function add<K>(map: Map<K, number>, key: K, amount: number): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

const field = (event: EventRecord, name: string): unknown => event.object[name];
const numberOf = (event: EventRecord, name: string): number => Number(field(event, name) ?? 0);
const valueOf = (event: EventRecord, name: string): Value => {
  const value = field(event, name);
  return value === undefined ? null : (value as Value);
};

/** A row compared with the latest event's state of its object, field by field. */
function compareWithEvent(out: Differences, row: Record<string, unknown>, event: EventRecord, fields: readonly string[]): void {
  for (const name of fields) out.check(String(row.id), name, valueOf(event, name), (row[name] ?? null) as Value, `latest event ${event.id} (${event.type})`);
}

/** Whether an object of each stored kind has events, and each event's object a row. */
function checkTrail(out: Differences, rowIds: Iterable<string>, latest: Map<string, EventRecord>, prefixOf: (event: EventRecord) => boolean): void {
  const rows = new Set(rowIds);
  for (const id of rows) if (!latest.has(id)) out.check(id, "(event trail)", "an event", "none", "every change of a money object emits an event");
  for (const [id, event] of latest) if (prefixOf(event) && !rows.has(id)) out.check(id, "(row)", "a row", "none", `latest event ${event.id} (${event.type})`);
}

/**
 * A coupon's terms from a discount's event state (the coupon is embedded, as the API shows it),
 * on an invoice of `subtotal` in `currency`: an amount off is the coupon's own amount in its own
 * currency, its `currency_options` amount in another (docs/billing.md, "Currency options"), and
 * nothing in a currency it has no amount in.
 */
function discountAmount(subtotal: number, currency: string, discount: EventRecord): number {
  const coupon = (discount.object.coupon ?? {}) as {
    percent_off?: number | null;
    amount_off_atom?: number | null;
    currency?: string | null;
    currency_options?: Record<string, { amount_off_atom?: number }> | null;
  };
  if (typeof coupon.percent_off === "number") {
    // Basis points, floored (lib/money.ts's rule, written out).
    const bps = BigInt(Math.round(coupon.percent_off * 100));
    return Number((BigInt(subtotal) * bps) / 10_000n);
  }
  if (typeof coupon.amount_off_atom !== "number") return 0;
  const amount = coupon.currency === currency ? coupon.amount_off_atom : coupon.currency_options?.[currency]?.amount_off_atom;
  return typeof amount === "number" ? Math.min(subtotal, amount) : 0;
}

/** A credit applies up to the total, a debt is carried whole (docs/credit-notes-and-balance.md, "At finalization"). */
function balanceApplied(starting: number, total: number): number {
  return starting > 0 ? Math.min(starting, total) : starting;
}

export function checkAccountMoney(money: AccountMoney): Difference[] {
  const out = new Differences();
  const latest = new Map(money.latest.map((event) => [event.aggregate_id, event]));
  const latestOfType = (prefix: string) => (event: EventRecord) => event.type.startsWith(prefix);

  // What the events say of payments: each payment's intent and amount, each intent's invoice, each refund's payment.
  const intentInvoice = new Map<string, string | null>();
  for (const intent of money.paymentIntents) {
    const event = latest.get(intent.id);
    intentInvoice.set(intent.id, event ? (valueOf(event, "invoice") as string | null) : intent.invoice);
  }
  const refundedOf = new Map<string, number>();
  for (const refund of money.refunds) {
    const event = latest.get(refund.id);
    if (event && field(event, "status") === "succeeded") add(refundedOf, String(field(event, "payment")), numberOf(event, "amount_atom"));
  }
  const receivedOf = new Map<string, number>();
  const paidTowardsInvoice = new Map<string, number>();
  for (const payment of money.payments) {
    const event = latest.get(payment.id);
    if (!event || field(event, "status") === "failed") continue;
    const intent = String(field(event, "payment_intent"));
    add(receivedOf, intent, numberOf(event, "amount_atom"));
    const invoice = intentInvoice.get(intent);
    if (invoice) add(paidTowardsInvoice, invoice, numberOf(event, "amount_atom"));
  }

  checkPayments(out, money, latest, refundedOf, receivedOf);
  checkTrail(out, money.paymentIntents.map((row) => row.id), latest, latestOfType("payment_intent."));
  checkTrail(out, money.payments.map((row) => row.id), latest, latestOfType("payment."));
  checkTrail(out, money.refunds.map((row) => row.id), latest, latestOfType("refund."));

  const ledger = checkBalances(out, money);
  const notes = checkCreditNotes(out, money, latest, ledger.amountOf);
  checkTrail(out, money.creditNotes.map((row) => row.id), latest, latestOfType("credit_note."));

  checkInvoices(out, money, latest, { notes, intentInvoice, paidTowardsInvoice, ledgerByInvoice: ledger.byInvoice });
  checkTrail(out, money.invoices.map((row) => row.id), latest, latestOfType("invoice."));
  // By object, so that one object's differences read together (the sort is stable: rule order within).
  return out.list.sort((a, b) => (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
}

function checkPayments(
  out: Differences,
  money: AccountMoney,
  latest: Map<string, EventRecord>,
  refundedOf: Map<string, number>,
  receivedOf: Map<string, number>,
): void {
  for (const intent of money.paymentIntents) {
    const event = latest.get(intent.id);
    if (event) compareWithEvent(out, intent, event, ["amount_atom", "amount_received_atom", "amount_capturable_atom", "status", "invoice"]);
    out.check(intent.id, "amount_received_atom", receivedOf.get(intent.id) ?? 0, intent.amount_received_atom, "Σ of the intent's payments that did not fail (payment events)");
    out.atMost(intent.id, "amount_received_atom", intent.amount_atom, intent.amount_received_atom, "an intent never receives more than its amount");
  }
  for (const payment of money.payments) {
    const event = latest.get(payment.id);
    if (event) compareWithEvent(out, payment, event, ["amount_atom", "amount_refunded_atom", "status", "payment_intent"]);
    if (payment.status === "failed") continue;
    const refunded = refundedOf.get(payment.id) ?? 0;
    out.check(payment.id, "amount_refunded_atom", refunded, payment.amount_refunded_atom, "Σ of the payment's succeeded refunds (refund events)");
    out.atMost(payment.id, "amount_refunded_atom", payment.amount_atom, payment.amount_refunded_atom, "a payment is never refunded more than its amount");
    const status = refunded === 0 ? "succeeded" : refunded >= payment.amount_atom ? "refunded" : "partially_refunded";
    out.check(payment.id, "status", status, payment.status, "a payment's status follows what its refunds returned");
  }
  for (const refund of money.refunds) {
    const event = latest.get(refund.id);
    if (event) compareWithEvent(out, refund, event, ["amount_atom", "status", "payment"]);
  }
}

/** The ledger from its events: per customer and currency the running sum, each row against its event. */
function checkBalances(out: Differences, money: AccountMoney) {
  const running = new Map<string, number>();
  const amountOf = new Map<string, number>();
  const byInvoice = new Map<string, { type: string; amount: number }[]>();
  const events = new Map<string, EventRecord>();
  for (const event of money.balanceTransactionEvents) {
    const id = event.aggregate_id;
    const key = `${String(field(event, "customer"))}\u0000${String(field(event, "currency"))}`;
    const amount = numberOf(event, "amount_atom");
    const ending = (running.get(key) ?? 0) + amount;
    running.set(key, ending);
    out.check(id, "ending_balance_atom", ending, numberOf(event, "ending_balance_atom"), `running Σ of the customer's balance transactions (event ${event.id})`);
    amountOf.set(id, amount);
    events.set(id, event);
    const invoice = field(event, "invoice");
    if (typeof invoice === "string") {
      const linked = byInvoice.get(invoice) ?? [];
      linked.push({ type: String(field(event, "type")), amount });
      byInvoice.set(invoice, linked);
    }
  }
  for (const row of money.balanceTransactions) {
    const event = events.get(row.id);
    if (!event) out.check(row.id, "(event trail)", "an event", "none", "every balance transaction emits customer.balance_transaction.created");
    else compareWithEvent(out, row, event, ["customer", "currency", "amount_atom", "ending_balance_atom", "type", "invoice", "credit_note"]);
  }
  const rows = new Set(money.balanceTransactions.map((row) => row.id));
  for (const [id, event] of events) if (!rows.has(id)) out.check(id, "(row)", "a row", "none", `event ${event.id} (${event.type})`);

  for (const customer of money.customers) {
    const currencies = new Set(Object.keys(customer.balances));
    for (const key of running.keys()) if (key.startsWith(`${customer.id}\u0000`)) currencies.add(key.slice(customer.id.length + 1));
    for (const currency of currencies) {
      out.check(customer.id, `balances.${currency}`, running.get(`${customer.id}\u0000${currency}`) ?? 0, customer.balances[currency] ?? 0, "Σ of the customer's balance transactions (customer.balance_transaction.created events)");
    }
  }
  return { amountOf, byInvoice };
}

type NoteTotals = { pre: Map<string, number>; post: Map<string, number> };

function checkCreditNotes(out: Differences, money: AccountMoney, latest: Map<string, EventRecord>, balanceAmountOf: Map<string, number>): NoteTotals {
  const totals: NoteTotals = { pre: new Map(), post: new Map() };
  const refundEvent = (id: string) => latest.get(id);
  const invoiceLines = new Map(money.lines.map((line) => [line.id, line]));
  // Per invoice line, what issued credit notes credited: the amount and the tax per rate.
  const creditedOfLine = new Map<string, { amount: number; taxes: TaxJson[] }>();
  for (const note of money.creditNotes) {
    const event = latest.get(note.id);
    if (event) {
      compareWithEvent(out, note, event, [
        "invoice", "status", "type", "subtotal_atom", "discount_atom", "tax_atom", "total_amount_atom", "refund_amount_atom", "credit_amount_atom", "out_of_band_amount_atom",
      ]);
      // What the invoice's amounts rest on: the issued notes as their events say.
      if (field(event, "status") === "issued") add(field(event, "type") === "pre_payment" ? totals.pre : totals.post, String(field(event, "invoice")), numberOf(event, "total_amount_atom"));
    }
    const rule = "a credit note's amounts are the sums of its lines";
    out.check(note.id, "subtotal_atom", sum(note.lines.map((line) => line.amount_atom)), note.subtotal_atom, rule);
    out.check(note.id, "discount_atom", sum(note.lines.map((line) => line.discount_atom)), note.discount_atom, rule);
    out.check(note.id, "tax_atom", sum(note.lines.map((line) => taxOf(line.tax_amounts))), note.tax_atom, rule);
    out.check(note.id, "total_amount_atom", sum(note.lines.map((line) => line.total_amount_atom)), note.total_amount_atom, rule);
    out.check(note.id, "total_amount_atom", note.subtotal_atom - note.discount_atom + exclusiveTaxOf(note.lines.flatMap((line) => line.tax_amounts)), note.total_amount_atom, "total = subtotal − discount + exclusive tax");
    const rates = perRate(note.lines.flatMap((line) => line.tax_amounts));
    const recordedRates = perRate(note.total_taxes);
    for (const rate of new Set([...rates.keys(), ...recordedRates.keys()])) out.check(note.id, `total_taxes.${rate}`, rates.get(rate) ?? 0, recordedRates.get(rate) ?? 0, rule);
    for (const [index, line] of note.lines.entries()) {
      out.check(note.id, `lines.${index}.total_amount_atom`, line.amount_atom - line.discount_atom + exclusiveTaxOf(line.tax_amounts), line.total_amount_atom, "a line's total = amount − discount + exclusive tax");
      if (note.status === "issued" && line.invoice_line !== null) {
        const credited = creditedOfLine.get(line.invoice_line) ?? { amount: 0, taxes: [] };
        credited.amount += line.amount_atom;
        credited.taxes.push(...line.tax_amounts);
        creditedOfLine.set(line.invoice_line, credited);
      }
    }
    if (note.type === "pre_payment") {
      for (const name of ["refund_amount_atom", "credit_amount_atom", "out_of_band_amount_atom"] as const) out.check(note.id, name, 0, note[name], "a pre-payment credit note moves no money");
    } else {
      out.check(note.id, "total_amount_atom", note.refund_amount_atom + note.credit_amount_atom + note.out_of_band_amount_atom, note.total_amount_atom, "refund + credit + out of band = total");
      const refunded = sum(note.refunds.map((id) => refundEvent(id)).filter((event) => event !== undefined && field(event, "status") === "succeeded").map((event) => numberOf(event!, "amount_atom")));
      out.check(note.id, "refund_amount_atom", refunded, note.refund_amount_atom, "Σ of its succeeded refunds (refund events)");
      const credited = note.customer_balance_transaction === null ? 0 : (balanceAmountOf.get(note.customer_balance_transaction) ?? 0);
      out.check(note.id, "credit_amount_atom", credited, note.credit_amount_atom, "its balance transaction's amount (event)");
    }
  }
  // Each line is creditable up to its amount and, per rate, its tax, over all issued notes (RULES: credit notes by line).
  for (const [lineId, credited] of creditedOfLine) {
    const line = invoiceLines.get(lineId);
    if (!line) continue;
    const rule = "Σ of the issued credit notes on a line ≤ the line";
    out.atMost(lineId, "credited amount_atom", line.amount_atom, credited.amount, rule);
    const lineTaxes = perRate(line.tax_amounts);
    for (const [rate, amount] of perRate(credited.taxes)) out.atMost(lineId, `credited tax ${rate}`, lineTaxes.get(rate) ?? 0, amount, rule);
  }
  return totals;
}

type InvoiceContext = {
  notes: NoteTotals;
  /** Each payment intent's invoice, as its events say. */
  intentInvoice: Map<string, string | null>;
  paidTowardsInvoice: Map<string, number>;
  ledgerByInvoice: Map<string, { type: string; amount: number }[]>;
};

/** The fields an invoice's latest event fixes: money changes that emit no invoice event are folded in by `expectedFromEvents`. */
const INVOICE_EVENT_FIELDS = [
  "customer", "currency", "status", "subtotal_atom", "discount_atom", "tax_atom", "total_amount_atom", "starting_balance_atom", "ending_balance_atom", "discount",
] as const;

/**
 * The invoice's amounts as its event trail says: its latest event's state, then what changed it
 * since without an invoice event (the catalogue has no `invoice.updated`): credit notes issued or
 * voided (`credit_note.*`) and partial payments (`payment.succeeded` of its intents).
 */
function expectedFromEvents(snapshot: EventRecord, since: { creditNotes: readonly EventRecord[]; payments: readonly EventRecord[] }) {
  let due = numberOf(snapshot, "due_amount_atom");
  let paid = numberOf(snapshot, "paid_amount_atom");
  let pre = numberOf(snapshot, "pre_payment_credit_notes_amount_atom");
  let post = numberOf(snapshot, "post_payment_credit_notes_amount_atom");
  for (const event of since.creditNotes) {
    if (event.id <= snapshot.id) continue;
    const total = numberOf(event, "total_amount_atom");
    if (event.type === "credit_note.created" && field(event, "type") === "pre_payment") {
      pre += total;
      due -= total;
    } else if (event.type === "credit_note.created") post += total;
    else if (event.type === "credit_note.voided" && field(event, "type") === "pre_payment") {
      pre -= total;
      due += total;
    }
  }
  for (const event of since.payments) {
    if (event.id <= snapshot.id) continue;
    const amount = numberOf(event, "amount_atom");
    paid += amount;
    due -= amount;
  }
  return { due_amount_atom: due, paid_amount_atom: paid, pre_payment_credit_notes_amount_atom: pre, post_payment_credit_notes_amount_atom: post };
}

function checkInvoices(out: Differences, money: AccountMoney, latest: Map<string, EventRecord>, context: InvoiceContext): void {
  const linesOf = groupBy(money.lines, (line) => line.invoice);
  // Each invoice's own credit note and payment events, so the fold reads only those (linear in the account's size).
  const creditNoteEventsOf = groupBy(money.creditNoteEvents, (event) => String(field(event, "invoice")));
  const paymentEventsOf = groupBy(
    money.paymentSucceededEvents.filter((event) => context.intentInvoice.get(String(field(event, "payment_intent")))),
    (event) => context.intentInvoice.get(String(field(event, "payment_intent")))!,
  );
  const finalizedEventOf = new Map(money.finalizedEvents.map((event) => [event.aggregate_id, event.id]));
  const discountEventsOf = groupBy(money.discountEvents, (event) => event.aggregate_id);
  // Once coupons: which finalized invoices each discount term (discount id and start) paid for.
  const onceUses = new Map<string, string[]>();

  for (const invoice of money.invoices) {
    const lines = linesOf.get(invoice.id) ?? [];
    const snapshot = latest.get(invoice.id);
    if (snapshot) checkAgainstTrail(out, invoice, lines, snapshot, { creditNotes: creditNoteEventsOf.get(invoice.id) ?? [], payments: paymentEventsOf.get(invoice.id) ?? [] });

    const id = invoice.id;
    const subtotal = sum(lines.map((line) => line.amount_atom));
    out.check(id, "subtotal_atom", subtotal, invoice.subtotal_atom, "Σ of the lines' amounts");
    if (invoice.status === "draft") {
      const rule = "a draft's totals follow its lines (no discount or tax before finalization)";
      out.check(id, "total_amount_atom", invoice.subtotal_atom, invoice.total_amount_atom, rule);
      out.check(id, "due_amount_atom", invoice.subtotal_atom, invoice.due_amount_atom, rule);
      continue;
    }
    out.check(id, "discount_atom", sum(lines.map((line) => line.discount_atom)), invoice.discount_atom, "Σ of the lines' discount shares");
    const lineTaxes = lines.flatMap((line) => line.tax_amounts);
    out.check(id, "tax_atom", taxOf(lineTaxes), invoice.tax_atom, "Σ of the lines' taxes");
    const rates = perRate(lineTaxes);
    const recordedRates = perRate(invoice.total_taxes);
    for (const rate of new Set([...rates.keys(), ...recordedRates.keys()])) {
      out.check(id, `total_taxes.${rate}`, rates.get(rate) ?? 0, recordedRates.get(rate) ?? 0, "Σ of the lines' taxes per rate");
    }
    out.check(
      id,
      "total_amount_atom",
      invoice.subtotal_atom - invoice.discount_atom + exclusiveTaxOf(lineTaxes) - invoice.total_credits_applied_atom,
      invoice.total_amount_atom,
      "total = subtotal − discount + exclusive tax − credits applied",
    );
    out.check(id, "total_credits_applied_atom", invoice.credit_grant_ledger_atom, invoice.total_credits_applied_atom, "credits applied = Σ of the credit grants' ledger rows for the invoice");

    // The discount: the coupon of the invoice's discount as its events stood when the invoice was finalized.
    const terms = discountTerms(invoice, finalizedEventOf.get(id), discountEventsOf);
    if (invoice.discount !== null && terms === null) out.check(invoice.discount, "(event trail)", "an event", "none", `the discount invoice ${id} applied`);
    else out.check(id, "discount_atom", terms ? discountAmount(invoice.subtotal_atom, invoice.currency, terms) : 0, invoice.discount_atom, terms ? `the coupon of ${invoice.discount} (event ${terms.id})` : "no discount applied");
    if (terms && (terms.object.coupon as { duration?: string } | undefined)?.duration === "once") {
      const key = `${invoice.discount} from ${String(field(terms, "start"))}`;
      const uses = onceUses.get(key);
      if (uses) uses.push(id);
      else onceUses.set(key, [id]);
    }

    const starting = invoice.starting_balance_atom ?? 0;
    const applied = balanceApplied(starting, invoice.total_amount_atom);
    out.check(id, "ending_balance_atom", starting - applied, invoice.ending_balance_atom ?? 0, "a credit applies up to the total; a debt is carried whole");
    const linked = context.ledgerByInvoice.get(id) ?? [];
    const ofType = (type: string) => sum(linked.filter((entry) => entry.type === type).map((entry) => entry.amount));
    out.check(id, "balance applied (applied_to_invoice transactions)", -((invoice.starting_balance_atom ?? 0) - (invoice.ending_balance_atom ?? 0)), ofType("applied_to_invoice"), "the ledger records the balance finalization applied");
    if (invoice.status === "void") {
      out.check(id, "balance returned (invoice_voided transactions)", (invoice.starting_balance_atom ?? 0) - (invoice.ending_balance_atom ?? 0), ofType("invoice_voided"), "a void returns every balance amount it applied");
    }

    const pre = context.notes.pre.get(id) ?? 0;
    const post = context.notes.post.get(id) ?? 0;
    out.check(id, "pre_payment_credit_notes_amount_atom", pre, invoice.pre_payment_credit_notes_amount_atom, "Σ of its issued pre-payment credit notes (events)");
    out.check(id, "post_payment_credit_notes_amount_atom", post, invoice.post_payment_credit_notes_amount_atom, "Σ of its issued post-payment credit notes (events)");
    out.atMost(id, "credit notes (pre + post)", invoice.total_amount_atom, invoice.pre_payment_credit_notes_amount_atom + invoice.post_payment_credit_notes_amount_atom, "Σ credit notes ≤ total");
    if (invoice.due_amount_atom < 0) out.check(id, "due_amount_atom", "at least 0", invoice.due_amount_atom, "an amount due is never negative");
    if (invoice.status === "paid") {
      out.check(id, "due_amount_atom", 0, invoice.due_amount_atom, "a paid invoice has nothing due");
      out.check(id, "paid_amount_atom", invoice.total_amount_atom, invoice.paid_amount_atom, "a paid invoice's paid amount is its total");
    } else if (invoice.status === "open" || invoice.status === "uncollectible") {
      const paid = context.paidTowardsInvoice.get(id) ?? 0;
      out.check(id, "paid_amount_atom", paid, invoice.paid_amount_atom, "Σ of the payments of its payment intents (payment events)");
      out.check(id, "due_amount_atom", invoice.total_amount_atom - applied - pre - paid, invoice.due_amount_atom, "due = total − balance applied − pre-payment credit notes − paid");
    }
  }
  for (const [term, invoices] of onceUses) {
    if (invoices.length > 1) for (const id of invoices.slice(1)) out.check(id, "discount", `none (the once discount ${term} was used by ${invoices[0]})`, term, "a once coupon applies to one invoice");
  }
}

/** The latest event's state of the invoice and its lines against the rows. */
function checkAgainstTrail(out: Differences, invoice: InvoiceRecord, lines: AccountMoney["lines"], snapshot: EventRecord, since: Parameters<typeof expectedFromEvents>[1]): void {
  const rule = `latest event ${snapshot.id} (${snapshot.type})`;
  // Draft edits emit no event (lib/invoices/lines.ts): a draft's amounts are checked against its lines only.
  const fields = invoice.status === "draft" && field(snapshot, "status") === "draft" ? ["customer", "currency", "status"] : INVOICE_EVENT_FIELDS;
  compareWithEvent(out, invoice, snapshot, fields);
  if (fields !== INVOICE_EVENT_FIELDS) return;
  const expected = expectedFromEvents(snapshot, since);
  const folded = `${rule}, then its credit notes and payments since`;
  for (const [name, value] of Object.entries(expected)) out.check(invoice.id, name, value, invoice[name as keyof typeof expected], folded);
  const recorded = (field(snapshot, "lines") ?? []) as { id: string; quantity: number; amount_atom: number; discount_atom: number; tax_amounts: TaxJson[] }[];
  const rows = new Map(lines.map((line) => [line.id, line]));
  for (const line of recorded) {
    const row = rows.get(line.id);
    if (!row) {
      out.check(line.id, "(row)", "a row", "none", rule);
      continue;
    }
    out.check(line.id, "quantity", line.quantity, row.quantity, rule);
    out.check(line.id, "amount_atom", line.amount_atom, row.amount_atom, rule);
    out.check(line.id, "discount_atom", line.discount_atom, row.discount_atom, rule);
    out.check(line.id, "tax", taxOf(line.tax_amounts), taxOf(row.tax_amounts), rule);
  }
  const inEvent = new Set(recorded.map((line) => line.id));
  for (const row of lines) if (!inEvent.has(row.id)) out.check(row.id, "(event trail)", "in the invoice's latest event", "none", rule);
}

/** The discount's state (its coupon) in force when the invoice was finalized: its last event before `invoice.finalized`. */
function discountTerms(invoice: InvoiceRecord, finalizedEventId: string | undefined, eventsOf: Map<string, EventRecord[]>): EventRecord | null {
  if (invoice.discount === null) return null;
  const events = eventsOf.get(invoice.discount) ?? [];
  const before = finalizedEventId === undefined ? events : events.filter((event) => event.id < finalizedEventId);
  return before.at(-1) ?? events[0] ?? null;
}
