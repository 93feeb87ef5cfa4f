import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import fc from "fast-check";
import { getDb } from "@/db/client";
import { creditNotes, customerBalanceTransactions, customers, invoices, paymentIntents, payments, refunds } from "@/db/schema";

/*
 * Random sequences of billing operations on one customer, and the invariants that must hold after
 * every step, read from the database itself. Two drivers run them: HTTP against the real server
 * (tests/api/credit-notes-property.test.ts) and the service verbs in-process
 * (tests/api/billing-property.test.ts, 10,000 sequences a run).
 */

export const PAY_METHODS = ["out_of_band", "pm_sandbox_succeeds", "pm_sandbox_partially_funded", "pm_sandbox_declined", "pm_sandbox_refund_fails"] as const;
export type PayMethod = (typeof PAY_METHODS)[number];
/** The plans a subscription moves between (unit amounts of its monthly prices), cheapest first. */
export const PLAN_AMOUNTS = [1000, 3000, 5000] as const;

const arbMethod = fc.constantFrom(...PAY_METHODS);
const arbCardMethod = fc.constantFrom("pm_sandbox_succeeds", "pm_sandbox_partially_funded", "pm_sandbox_declined") satisfies fc.Arbitrary<Exclude<PayMethod, "out_of_band">>;

// Weighted towards the steps that move money on invoices; plan steps (a subscription and its
// proration invoices, the dearest steps) are rarer, still some thousands in a run.
export const arbStep = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("invoice" as const), amount: fc.integer({ min: 0, max: 5000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("pay" as const), target: fc.nat(), method: arbMethod }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("refund" as const), target: fc.nat(), amount: fc.integer({ min: 1, max: 3000 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("credit_note" as const),
      target: fc.nat(),
      amount: fc.integer({ min: 1, max: 4000 }),
      split: fc.tuple(fc.nat({ max: 100 }), fc.nat({ max: 100 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("void" as const), target: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("adjust" as const), amount: fc.integer({ min: -2000, max: 2000 }).filter((value) => value !== 0) }) },
  // The first plan step subscribes the customer; later ones switch its plan now (upgrade or downgrade).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("plan" as const), plan: fc.nat({ max: PLAN_AMOUNTS.length - 1 }), method: arbCardMethod }) },
);
export type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;
export const arbSequence = fc.array(arbStep, { minLength: 1, maxLength: 6 });

/** A refusal a client can be given (409, 422): the step changed nothing, and the sequence goes on. */
export type Outcome<T = null> = { ok: true; value: T } | { ok: false; refusal: string };

/** What a sequence does to one customer: the service verbs, or the HTTP operations that call them. */
export interface BillingDriver {
  createCustomer(): Promise<string>;
  /** Create and finalize a one-line invoice. */
  charge(customer: string, amountAtom: number): Promise<Outcome>;
  pay(invoice: string, method: PayMethod): Promise<Outcome>;
  refund(payment: string, amountAtom: number): Promise<Outcome>;
  creditNote(input: { invoice: string; amount_atom: number; refund_amount_atom?: number; credit_amount_atom?: number; out_of_band_amount_atom?: number }): Promise<Outcome>;
  voidCreditNote(id: string): Promise<Outcome>;
  adjust(customer: string, amountAtom: number): Promise<Outcome>;
  subscribe(customer: string, price: string, method: string): Promise<Outcome<{ id: string; item: string }>>;
  /** A change request switching the item's price, `effective: now`, applied with the method. */
  changePlan(subscription: string, item: string, price: string, method: string): Promise<Outcome>;
}

/** The model's own record of what the database cannot know: money that changed hands outside the service. */
type Model = { customer: string; outOfBandInAtom: number; subscription: { id: string; item: string; plan: number } | null };

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

async function finalizedInvoices(customer: string) {
  const db = await getDb();
  return db
    .select()
    .from(invoices)
    .where(and(eq(invoices.customerId, customer), ne(invoices.status, "draft")))
    .orderBy(asc(invoices.created), asc(invoices.id));
}

/** The customer's payments with something left to refund, oldest first. */
async function refundablePayments(customer: string) {
  const db = await getDb();
  const rows = await db
    .select({ id: payments.id, amountAtom: payments.amountAtom, refundedAtom: payments.amountRefundedAtom })
    .from(payments)
    .innerJoin(paymentIntents, eq(paymentIntents.id, payments.paymentIntentId))
    .where(and(eq(paymentIntents.customerId, customer), ne(payments.status, "failed")))
    .orderBy(asc(payments.created), asc(payments.id));
  return rows.filter((row) => row.refundedAtom < row.amountAtom);
}

async function step(driver: BillingDriver, model: Model, step: Step, prices: readonly string[]): Promise<Outcome<unknown> | null> {
  switch (step.kind) {
    case "invoice":
      return driver.charge(model.customer, step.amount);
    case "pay": {
      // Mostly open invoices; now and then any (paying a paid or void one is refused).
      const all = await finalizedInvoices(model.customer);
      const open = all.filter((row) => row.status === "open");
      const invoice = pick(step.target % 5 === 0 || open.length === 0 ? all : open, step.target);
      if (!invoice) return null;
      const outcome = await driver.pay(invoice.id, step.method);
      // Paid outside the service: the customer handed over exactly what the invoice had due.
      if (outcome.ok && step.method === "out_of_band") model.outOfBandInAtom += invoice.dueAmountAtom;
      return outcome;
    }
    case "refund": {
      const payment = pick(await refundablePayments(model.customer), step.target);
      return payment ? driver.refund(payment.id, step.amount) : null;
    }
    case "credit_note": {
      const invoice = pick(await finalizedInvoices(model.customer), step.target);
      if (!invoice) return null;
      const refund = Math.floor((step.amount * step.split[0]) / 200);
      const credit = Math.floor(((step.amount - refund) * step.split[1]) / 100);
      const split = invoice.status === "paid" ? { refund_amount_atom: refund, credit_amount_atom: credit, out_of_band_amount_atom: step.amount - refund - credit } : {};
      return driver.creditNote({ invoice: invoice.id, amount_atom: step.amount, ...split });
    }
    case "void": {
      const db = await getDb();
      const notes = await db
        .select({ id: creditNotes.id })
        .from(creditNotes)
        .where(and(eq(creditNotes.customerId, model.customer), eq(creditNotes.status, "issued")))
        .orderBy(asc(creditNotes.created), asc(creditNotes.id));
      const note = pick(notes, step.target);
      return note ? driver.voidCreditNote(note.id) : null;
    }
    case "adjust":
      return driver.adjust(model.customer, step.amount);
    case "plan": {
      if (!model.subscription) {
        const made = await driver.subscribe(model.customer, prices[step.plan]!, step.method);
        if (made.ok) model.subscription = { ...made.value, plan: step.plan };
        return made;
      }
      const { id, item, plan } = model.subscription;
      // Never the plan it is on: an upgrade or a downgrade, both ways of the proration.
      const to = step.plan === plan ? (plan + 1) % PLAN_AMOUNTS.length : step.plan;
      const changed = await driver.changePlan(id, item, prices[to]!, step.method);
      if (changed.ok) model.subscription = { id, item, plan: to };
      return changed;
    }
  }
}

/**
 * Runs one sequence on a new customer (answered), checking the invariants after each step: all of
 * them after the last (and after every step with `fullCheckEachStep`), the SQL-level ones between.
 * `prices`: the account's PLAN_AMOUNTS prices.
 */
export async function runSequence(driver: BillingDriver, prices: readonly string[], steps: readonly Step[], options: { fullCheckEachStep: boolean }): Promise<string> {
  const model: Model = { customer: await driver.createCustomer(), outOfBandInAtom: 0, subscription: null };
  for (const [index, current] of steps.entries()) {
    await step(driver, model, current, prices);
    const where = `after step ${index} (${current.kind})`;
    if (options.fullCheckEachStep || index === steps.length - 1) await checkInvariants(model, where);
    else await checkQuickly(model.customer, where);
  }
  return model.customer;
}

/**
 * The SQL-level invariants in one round trip, for the steps between full checks: no invoice with
 * a negative amount due, credited beyond its total, or whose pre + post amounts are not its issued
 * credit notes; the ledger sums to the balance.
 */
async function checkQuickly(customer: string, where: string): Promise<void> {
  const db = await getDb();
  const rows = (await db.execute(sql`
    select
      (select count(*) from invoices i
        where i.customer_id = ${customer} and i.status <> 'draft'
          and (i.due_amount_atom < 0
            or i.pre_payment_credit_notes_amount_atom + i.post_payment_credit_notes_amount_atom > i.total_amount_atom
            or i.pre_payment_credit_notes_amount_atom + i.post_payment_credit_notes_amount_atom
              <> (select coalesce(sum(c.total_amount_atom), 0) from credit_notes c where c.invoice_id = i.id and c.status = 'issued'))) as invoices,
      (select coalesce(sum(amount_atom), 0) from customer_balance_transactions where customer_id = ${customer} and currency = 'usd') as ledger,
      (select coalesce((balances ->> 'usd')::bigint, 0) from customers where id = ${customer}) as balance`)) as unknown as { invoices: string; ledger: string; balance: string }[];
  const [row] = rows;
  if (Number(row!.invoices) !== 0 || Number(row!.ledger) !== Number(row!.balance)) {
    throw new Error(`${where}: ${row!.invoices} invoices break their credit note or amount due invariants; the ledger sums to ${row!.ledger}, the balance is ${row!.balance}`);
  }
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * The invariants, from the rows themselves (every sequence's customer bills in usd only):
 *
 * 1. per invoice: Σ issued credit notes ≤ total, and = pre-payment + post-payment amounts;
 *    amount due ≥ 0; paid → due 0 and paid = total; open → due = total − balance applied −
 *    pre-payment credit notes − partial payments received (its own settlement, exact);
 * 2. the customer's ledger sums to its balance; each payment's refunded amount is its succeeded refunds;
 * 3. money in = money out + what the customer's money became, as an identity between tables that
 *    no one of them can make true alone:
 *
 *      captured + out_of_band_in − refunded − credit_note_out_of_band
 *        = Σ_finalized (total − pre − post − due) − direct_refunds + (balance − granted)
 *
 *    captured: Σ payments not failed (payments); refunded: Σ succeeded refunds of them (refunds);
 *    out_of_band_in: what the invoices paid out of band had due (the model: the service records no
 *    amount); credit_note_out_of_band: what post-payment credit notes say was returned outside the
 *    service; Σ_finalized: what the customer owed and settled, net of every credit note, from the
 *    invoices' own amounts; direct_refunds: refunds no credit note made (the invoice stays paid and
 *    unchanged, so that money left without reducing what was billed); balance − granted: the credit
 *    the customer's money and credit notes left on the balance, less the ledger rows that are neither
 *    a credit note's credit nor a balance applied to an invoice (the merchant's adjustments; a
 *    credit the service grants, as for unused time on a downgrade, is such a row too). A refund not
 *    recorded, a balance credit applied twice, a credit note whose amounts do not match its refunds,
 *    or a payment collected beyond the due amount breaks it.
 */
export async function checkInvariants(model: Model, where: string): Promise<void> {
  const db = await getDb();
  const [rows, notes, ledger, [customer], paid] = await Promise.all([
    finalizedInvoices(model.customer),
    db.select().from(creditNotes).where(eq(creditNotes.customerId, model.customer)),
    db.select().from(customerBalanceTransactions).where(eq(customerBalanceTransactions.customerId, model.customer)),
    db.select({ balances: customers.balances }).from(customers).where(eq(customers.id, model.customer)),
    db
      .select({ id: payments.id, invoiceId: paymentIntents.invoiceId, status: payments.status, amountAtom: payments.amountAtom, refundedAtom: payments.amountRefundedAtom })
      .from(payments)
      .innerJoin(paymentIntents, eq(paymentIntents.id, payments.paymentIntentId))
      .where(eq(paymentIntents.customerId, model.customer)),
  ]);
  const made = paid.length === 0 ? [] : await db.select().from(refunds).where(inArray(refunds.paymentId, paid.map((row) => row.id)));
  const issued = notes.filter((note) => note.status === "issued");
  // Collected, not asserted one by one: the rows are printed once, and only when something is wrong.
  const broken: string[] = [];
  const check = (holds: boolean, what: string) => void (holds || broken.push(what));

  for (const invoice of rows) {
    const credited = sum(issued.filter((note) => note.invoiceId === invoice.id).map((note) => note.totalAmountAtom));
    check(credited <= invoice.totalAmountAtom, `${invoice.id}: credit notes ${credited} > total ${invoice.totalAmountAtom}`);
    check(credited === invoice.prePaymentCreditNotesAmountAtom + invoice.postPaymentCreditNotesAmountAtom, `${invoice.id}: credit notes ${credited} ≠ pre + post`);
    check(invoice.dueAmountAtom >= 0, `${invoice.id}: amount due ${invoice.dueAmountAtom} < 0`);
    if (invoice.status === "paid") check(invoice.dueAmountAtom === 0 && invoice.paidAmountAtom === invoice.totalAmountAtom, `${invoice.id}: paid, but due/paid amounts are off`);
    if (invoice.status === "open") {
      const applied = -sum(ledger.filter((row) => row.type === "applied_to_invoice" && row.invoiceId === invoice.id).map((row) => row.amountAtom));
      const received = sum(paid.filter((row) => row.invoiceId === invoice.id && row.status !== "failed").map((row) => row.amountAtom));
      check(invoice.paidAmountAtom === received, `${invoice.id}: paid amount ${invoice.paidAmountAtom} ≠ payments received ${received}`);
      const due = invoice.totalAmountAtom - applied - invoice.prePaymentCreditNotesAmountAtom - received;
      check(invoice.dueAmountAtom === due, `${invoice.id}: amount due ${invoice.dueAmountAtom} ≠ total − balance applied − pre-payment credit notes − received (${due})`);
    }
  }

  const balance = customer?.balances.usd ?? 0;
  const ledgerSum = sum(ledger.map((row) => row.amountAtom));
  check(ledgerSum === balance, `ledger sums to ${ledgerSum}, balance is ${balance}`);
  const succeeded = made.filter((row) => row.status === "succeeded");
  for (const payment of paid) {
    const refundedAtom = sum(succeeded.filter((row) => row.paymentId === payment.id).map((row) => row.amountAtom));
    check(payment.refundedAtom === refundedAtom, `${payment.id}: amount refunded ${payment.refundedAtom} ≠ its succeeded refunds ${refundedAtom}`);
  }

  const captured = sum(paid.filter((row) => row.status !== "failed").map((row) => row.amountAtom));
  const refunded = sum(succeeded.map((row) => row.amountAtom));
  const byNotes = new Set(issued.flatMap((note) => note.refundIds));
  const directRefunds = sum(succeeded.filter((row) => !byNotes.has(row.id)).map((row) => row.amountAtom));
  const noteOutOfBand = sum(issued.map((note) => note.outOfBandAmountAtom));
  const settled = sum(rows.filter((row) => row.status !== "void").map((row) => row.totalAmountAtom - row.prePaymentCreditNotesAmountAtom - row.postPaymentCreditNotesAmountAtom - row.dueAmountAtom));
  // Credit no payment or credit note made: the merchant's adjustments (and any credit the service grants, e.g. for a downgrade).
  const granted = sum(ledger.filter((row) => row.type !== "applied_to_invoice" && row.type !== "credit_note").map((row) => row.amountAtom));
  const kept = captured + model.outOfBandInAtom - refunded - noteOutOfBand;
  const became = settled - directRefunds + balance - granted;
  check(kept === became, `money in − money out = ${kept}, but settled − direct refunds + balance − granted = ${became}`);

  if (broken.length > 0) throw new Error(`${where}:\n${broken.join("\n")}\n${JSON.stringify({ model, rows, notes, ledger, paid, made }, null, 1)}`);
}
