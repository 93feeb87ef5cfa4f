import { describe, expect, it } from "vitest";
import { checkAccountMoney } from "../../scripts/audit/checks";
import type { AccountMoney, CreditNoteRecord, EventRecord, InvoiceRecord } from "../../scripts/audit/load";

/*
 * The money audit's rules (scripts/audit/checks.ts) on hand-built accounts: the issue #42 rules
 * that the service refuses to break once fixed (a void returns the balance it applied, a once
 * coupon pays for one invoice, a line is credited at most once over), so that an API test could
 * only show them on the code before the fixes. tests/api/audit-money.test.ts runs the command.
 */

let sequence = 0;
const event = (type: string, object: Record<string, unknown>): EventRecord => ({
  id: `evt_${String(++sequence).padStart(6, "0")}`,
  type,
  aggregate_id: String(object.id),
  object,
});

const line = { id: "il_1", invoice: "in_1", quantity: 1, amount_atom: 2000, discount_atom: 0, tax_amounts: [] };

/** A customer owing 500, carried onto a finalized invoice of 2,000 (due 2,500). */
function owingCustomer(): AccountMoney {
  sequence = 0;
  const debt = { id: "cbt_1", customer: "cus_1", currency: "eur", amount_atom: -500, ending_balance_atom: -500, type: "adjustment", invoice: null, credit_note: null };
  const carried = { id: "cbt_2", customer: "cus_1", currency: "eur", amount_atom: 500, ending_balance_atom: 0, type: "applied_to_invoice", invoice: "in_1", credit_note: null };
  const invoice: InvoiceRecord = {
    id: "in_1",
    customer: "cus_1",
    status: "open",
    currency: "eur",
    subtotal_atom: 2000,
    discount_atom: 0,
    tax_atom: 0,
    total_taxes: [],
    total_amount_atom: 2000,
    total_credits_applied_atom: 0,
    credit_grant_ledger_atom: 0,
    due_amount_atom: 2500,
    paid_amount_atom: 0,
    pre_payment_credit_notes_amount_atom: 0,
    post_payment_credit_notes_amount_atom: 0,
    starting_balance_atom: -500,
    ending_balance_atom: 0,
    discount: null,
  };
  const balanceEvents = [event("customer.balance_transaction.created", debt), event("customer.balance_transaction.created", carried)];
  const finalized = event("invoice.finalized", { ...invoice, lines: [line] });
  return {
    invoices: [invoice],
    lines: [line],
    creditNotes: [],
    customers: [{ id: "cus_1", balances: { eur: 0 } }],
    balanceTransactions: [debt, carried],
    paymentIntents: [],
    payments: [],
    refunds: [],
    latest: [finalized],
    creditNoteEvents: [],
    balanceTransactionEvents: balanceEvents,
    paymentSucceededEvents: [],
    discountEvents: [],
    finalizedEvents: [finalized],
    eventCount: 3,
  };
}

function voided(money: AccountMoney): AccountMoney {
  const invoice = { ...money.invoices[0]!, status: "void" };
  return { ...money, invoices: [invoice], latest: [event("invoice.voided", { ...invoice, lines: [line] })] };
}

describe("the money audit's rules", () => {
  it("an account whose rows agree with its events and rules has no difference", () => {
    expect(checkAccountMoney(owingCustomer())).toEqual([]);
  });

  it("a void that leaves the balance it applied on the invoice is named; returning it with invoice_voided clears it", () => {
    const lost = voided(owingCustomer());
    expect(checkAccountMoney(lost)).toEqual([
      expect.objectContaining({ object: "in_1", field: "balance returned (invoice_voided transactions)", expected: -500, found: 0 }),
    ]);

    const returned = { id: "cbt_3", customer: "cus_1", currency: "eur", amount_atom: -500, ending_balance_atom: -500, type: "invoice_voided", invoice: "in_1", credit_note: null };
    const fixed: AccountMoney = {
      ...lost,
      customers: [{ id: "cus_1", balances: { eur: -500 } }],
      balanceTransactions: [...lost.balanceTransactions, returned],
      balanceTransactionEvents: [...lost.balanceTransactionEvents, event("customer.balance_transaction.created", returned)],
    };
    expect(checkAccountMoney(fixed)).toEqual([]);
  });

  it("a once coupon on a second invoice is named on that invoice", () => {
    const money = owingCustomer();
    const discount = event("customer.discount.created", { id: "di_1", coupon: { percent_off: 50, duration: "once" }, start: "2026-11-29T00:00:00.000Z" });
    const invoices = ["in_2", "in_3"].map((id): InvoiceRecord => ({
      ...money.invoices[0]!,
      id,
      status: "open",
      discount: "di_1",
      discount_atom: 1000,
      total_amount_atom: 1000,
      due_amount_atom: 1000,
      starting_balance_atom: 0,
      ending_balance_atom: 0,
    }));
    const lines = invoices.map((invoice) => ({ ...line, id: `il_${invoice.id}`, invoice: invoice.id, discount_atom: 1000 }));
    const finalized = invoices.map((invoice, index) => event("invoice.finalized", { ...invoice, lines: [lines[index]] }));
    const both: AccountMoney = {
      ...money,
      invoices: [...money.invoices, ...invoices],
      lines: [...money.lines, ...lines],
      latest: [...money.latest, ...finalized],
      discountEvents: [discount],
      finalizedEvents: [...money.finalizedEvents, ...finalized],
    };
    expect(checkAccountMoney(both)).toEqual([expect.objectContaining({ object: "in_3", field: "discount", found: "di_1 from 2026-11-29T00:00:00.000Z" })]);
  });

  it("an amount-off coupon discounts an invoice in another currency by its currency option's amount", () => {
    const money = owingCustomer();
    // A usd coupon of 7.00 with an eur option of 6.50 on an eur invoice of 20.00: 650 off, never 700.
    const discount = event("customer.discount.created", {
      id: "di_1",
      coupon: { amount_off_atom: 700, currency: "usd", currency_options: { eur: { amount_off_atom: 650 } }, duration: "forever" },
      start: "2026-11-29T00:00:00.000Z",
    });
    const discounted = (discountAtom: number): AccountMoney => {
      const invoice: InvoiceRecord = {
        ...money.invoices[0]!,
        id: "in_2",
        discount: "di_1",
        discount_atom: discountAtom,
        total_amount_atom: 2000 - discountAtom,
        due_amount_atom: 2000 - discountAtom,
        starting_balance_atom: 0,
        ending_balance_atom: 0,
      };
      const lines = [{ ...line, id: "il_2", invoice: "in_2", discount_atom: discountAtom }];
      const finalized = event("invoice.finalized", { ...invoice, lines });
      return {
        ...money,
        invoices: [...money.invoices, invoice],
        lines: [...money.lines, ...lines],
        latest: [...money.latest, finalized],
        discountEvents: [discount],
        finalizedEvents: [...money.finalizedEvents, finalized],
      };
    };
    expect(checkAccountMoney(discounted(650))).toEqual([]);
    expect(checkAccountMoney(discounted(700))).toEqual([expect.objectContaining({ object: "in_2", field: "discount_atom", expected: 650, found: 700 })]);
  });

  it("a line credited in full by two credit notes is named on the line", () => {
    const money = owingCustomer();
    const paid = { ...money.invoices[0]!, status: "paid", due_amount_atom: 0, paid_amount_atom: 2000, post_payment_credit_notes_amount_atom: 4000 };
    const notes = ["cn_1", "cn_2"].map(
      (id): CreditNoteRecord => ({
        id,
        invoice: "in_1",
        customer: "cus_1",
        status: "issued",
        type: "post_payment",
        lines: [{ invoice_line: "il_1", amount_atom: 2000, discount_atom: 0, tax_amounts: [], total_amount_atom: 2000 }],
        subtotal_atom: 2000,
        discount_atom: 0,
        tax_atom: 0,
        total_taxes: [],
        total_amount_atom: 2000,
        refund_amount_atom: 0,
        credit_amount_atom: 0,
        out_of_band_amount_atom: 2000,
        refunds: [],
        customer_balance_transaction: null,
      }),
    );
    const noteEvents = notes.map((note) => event("credit_note.created", { ...note }));
    const credited: AccountMoney = {
      ...money,
      invoices: [paid],
      creditNotes: notes,
      latest: [event("invoice.paid", { ...paid, lines: [line] }), ...noteEvents],
      creditNoteEvents: noteEvents,
    };
    const differences = checkAccountMoney(credited);
    expect(differences).toContainEqual(expect.objectContaining({ object: "il_1", field: "credited amount_atom", expected: "at most 2000", found: 4000 }));
    expect(differences).toContainEqual(expect.objectContaining({ object: "in_1", field: "credit notes (pre + post)", expected: "at most 2000", found: 4000 }));
  });
});
