import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { download, pdfText, printedMoney } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";

/* The customer balance and its ledger (docs/credit-notes-and-balance.md), applied at finalization. */

let merchant: Merchant;
let sandbox: Client;
let account: string;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
});

async function customer(): Promise<Json> {
  const response = await sandbox.post("/customers", { email: "balance@example.com", name: "Balance Customer", preferred_locale: "en" });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function adjust(cus: Json, amount: number, currency = "usd"): Promise<Json> {
  const response = await sandbox.post(`/customers/${cus.id}/balance-transactions`, { amount_atom: amount, currency, description: `Adjust ${amount}` });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function finalize(cus: Json, amount: number, currency = "usd"): Promise<Json> {
  const draft = await sandbox.post("/invoices", { customer: cus.id, currency, lines: [{ unit_amount_atom: amount, description: "Service" }] });
  expect(draft.status, draft.text).toBe(201);
  expect(draft.body).toMatchObject({ starting_balance_atom: null, ending_balance_atom: null });
  const open = await sandbox.post(`/invoices/${draft.body.id}/finalize`);
  expect(open.status, open.text).toBe(200);
  return open.body;
}

async function ledger(cus: Json, currency?: string): Promise<Json[]> {
  const response = await sandbox.get(`/customers/${cus.id}/balance-transactions?limit=100${currency ? `&currency=${currency}` : ""}`);
  expect(response.status, response.text).toBe(200);
  return response.body.items;
}

const balancesOf = async (cus: Json) => (await sandbox.get(`/customers/${cus.id}`)).body.balances;

describe("the customer balance", () => {
  it("manual adjustments per currency: a ledger that sums to the balance, one event each", async () => {
    const cus = await customer();
    expect(cus.balances).toEqual({});
    const first = await adjust(cus, 1500);
    expect(first).toMatchObject({
      id: expect.stringMatching(/^cbtxn_[a-z]+_[0-9a-z]{29}$/),
      object: "customer_balance_transaction",
      customer: cus.id,
      currency: "usd",
      amount_atom: 1500,
      ending_balance_atom: 1500,
      type: "adjustment",
      description: "Adjust 1500",
      invoice: null,
      credit_note: null,
      livemode: false,
    });
    await adjust(cus, -400);
    await adjust(cus, 700, "eur");
    expect(await balancesOf(cus)).toEqual({ usd: 1100, eur: 700 });
    const usd = await ledger(cus, "usd");
    expect(usd.map((row) => row.amount_atom)).toEqual([-400, 1500]);
    expect(usd.reduce((sum, row) => sum + row.amount_atom, 0)).toBe(1100);
    expect((await ledger(cus)).length).toBe(3);
    const events = (await sandbox.get(`/${account}/events?aggregate_id=${first.id}`)).body.items;
    expect(events.map((event: Json) => [event.type, event.data])).toEqual([["customer.balance_transaction.created", first]]);
  });

  it("refuses what it cannot do, changing nothing", async () => {
    const cus = await customer();
    for (const body of [{ amount_atom: 0, currency: "usd", description: "x" }, { amount_atom: 1.5, currency: "usd", description: "x" }, { amount_atom: 10, currency: "dollars", description: "x" }, { amount_atom: 10, currency: "usd", description: "" }]) {
      expectProblem(await sandbox.post(`/customers/${cus.id}/balance-transactions`, body), 422);
    }
    expectProblem(await sandbox.post("/customers/cus_test_nope/balance-transactions", { amount_atom: 10, currency: "usd", description: "x" }), 404);
    expectProblem(await sandbox.get("/customers/cus_test_nope/balance-transactions"), 404);
    expect(await balancesOf(cus)).toEqual({});
    expect(await ledger(cus)).toEqual([]);
  });

  it("a credit lowers the next invoice of its currency at finalization; what exceeds the total stays", async () => {
    const cus = await customer();
    await adjust(cus, 500);
    await adjust(cus, 9999, "eur");
    const invoice = await finalize(cus, 2000);
    expect(invoice).toMatchObject({ status: "open", total_amount_atom: 2000, starting_balance_atom: 500, ending_balance_atom: 0, due_amount_atom: 1500 });
    expect(await balancesOf(cus)).toEqual({ usd: 0, eur: 9999 });
    expect((await ledger(cus, "usd"))[0]).toMatchObject({ type: "applied_to_invoice", amount_atom: -500, ending_balance_atom: 0, invoice: invoice.id });
    // Paid with a card for what is due: the spec's paid state (paid = total, due = 0).
    const paid = (await sandbox.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_succeeds" })).body;
    expect(paid).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 2000 });
    const intent = (await sandbox.get(`/payment-intents/${paid.payment_intent}`)).body;
    expect(intent.amount_atom).toBe(1500);
    // The document as issued prints the credit applied and what was due then; the paid version
    // (what the PDF link serves once paid) what the card paid and nothing due.
    const issued = pdfText((await download(`${apiBaseUrl()}/invoices/${invoice.id}/pdf?version=issued`, merchant.sandboxSecret.token)).bytes);
    expect(issued).toContain(`Applied balance (credit) -${printedMoney(500, "usd", "en")}`);
    expect(issued).toContain(`Amount due ${printedMoney(1500, "usd", "en")}`);
    const paidText = pdfText((await download(`${apiBaseUrl()}/invoices/${invoice.id}/pdf`, merchant.sandboxSecret.token)).bytes);
    expect(paidText).toContain(`Applied balance (credit) -${printedMoney(500, "usd", "en")}`);
    expect(paidText).toContain(`Amount paid ${printedMoney(1500, "usd", "en")}`);
    expect(paidText).toContain(`Amount due ${printedMoney(0, "usd", "en")}`);

    // More credit than the next total: the invoice is paid at once, the rest stays.
    await adjust(cus, 3000);
    const covered = await finalize(cus, 1200);
    expect(covered).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 1200, starting_balance_atom: 3000, ending_balance_atom: 1800 });
    expect(await balancesOf(cus)).toEqual({ usd: 1800, eur: 9999 });
  });

  it("a debit (negative balance) is added to the next invoice", async () => {
    const cus = await customer();
    await adjust(cus, -300);
    const invoice = await finalize(cus, 1000);
    expect(invoice).toMatchObject({ status: "open", total_amount_atom: 1000, starting_balance_atom: -300, ending_balance_atom: 0, due_amount_atom: 1300 });
    expect(await balancesOf(cus)).toEqual({ usd: 0 });
    const rows = await ledger(cus);
    expect(rows.map((row) => [row.type, row.amount_atom])).toEqual([["applied_to_invoice", 300], ["adjustment", -300]]);
    const paid = (await sandbox.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_succeeds" })).body;
    expect(paid).toMatchObject({ status: "paid", due_amount_atom: 0 });
    expect((await sandbox.get(`/payment-intents/${paid.payment_intent}`)).body.amount_atom).toBe(1300);
  });

  it("a zero balance leaves the invoice as before (no ledger row)", async () => {
    const cus = await customer();
    const invoice = await finalize(cus, 700);
    expect(invoice).toMatchObject({ starting_balance_atom: 0, ending_balance_atom: 0, due_amount_atom: 700 });
    expect(await ledger(cus)).toEqual([]);
  });

  // Issue 42 (defect 4): a void gives back the balance its invoice's finalization applied, both signs.
  it.each([
    ["a debit carried onto the invoice is owed again", -500, 2500],
    ["a credit drawn by the invoice is the customer's again", 500, 1500],
  ])("voiding an invoice that applied the balance: %s (invoice_voided, its event)", async (_case, balance, due) => {
    const cus = await customer();
    await adjust(cus, balance);
    const invoice = await finalize(cus, 2000);
    expect(invoice).toMatchObject({ status: "open", total_amount_atom: 2000, starting_balance_atom: balance, ending_balance_atom: 0, due_amount_atom: due });
    expect(await balancesOf(cus)).toEqual({ usd: 0 });

    const voided = await sandbox.post(`/invoices/${invoice.id}/void`);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe("void");
    expect(await balancesOf(cus)).toEqual({ usd: balance });
    const rows = await ledger(cus, "usd");
    expect(rows.map((row) => [row.type, row.amount_atom, row.ending_balance_atom, row.invoice])).toEqual([
      ["invoice_voided", balance, balance, invoice.id],
      ["applied_to_invoice", -balance, 0, invoice.id],
      ["adjustment", balance, balance, null],
    ]);
    const events = (await sandbox.get(`/${account}/events?aggregate_id=${rows[0]!.id}`)).body.items;
    expect(events.map((event: Json) => [event.type, event.data])).toEqual([["customer.balance_transaction.created", rows[0]]]);

    // The next invoice meets the balance as it stood before the voided one.
    const next = await finalize(cus, 2000);
    expect(next).toMatchObject({ starting_balance_atom: balance, ending_balance_atom: 0, due_amount_atom: due });
  });

  it("voiding an invoice that applied no balance writes no ledger row", async () => {
    const cus = await customer();
    const invoice = await finalize(cus, 900);
    expect((await sandbox.post(`/invoices/${invoice.id}/void`)).status).toBe(200);
    expect(await ledger(cus)).toEqual([]);
  });

  it("an invoice with a partial payment cannot be voided (409, nothing changes); a paid one neither", async () => {
    const cus = await customer();
    await adjust(cus, -300);
    const invoice = await finalize(cus, 2000);
    const partial = await sandbox.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_partially_funded" });
    expect(partial.status, partial.text).toBe(200);
    expect(partial.body).toMatchObject({ status: "open", paid_amount_atom: 1150, due_amount_atom: 1150 });
    expectProblem(await sandbox.post(`/invoices/${invoice.id}/void`), 409, /paid; an invoice with a payment cannot be voided/);
    expect((await sandbox.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: "open", paid_amount_atom: 1150 });
    expect(await balancesOf(cus)).toEqual({ usd: 0 });

    const paid = await sandbox.post(`/invoices/${invoice.id}/pay`, { paid_out_of_band: true });
    expect(paid.body.status).toBe("paid");
    expectProblem(await sandbox.post(`/invoices/${invoice.id}/void`), 409);
    expect(await balancesOf(cus)).toEqual({ usd: 0 });
  });

  it("a renewal applies the balance before collecting: the card is charged the rest (test clock)", async () => {
    // Its own sandbox account: the test clock moves a whole account.
    const own = await newMerchant();
    const client = api(own.sandboxSecret.token);
    const cus = (await client.post("/customers", { email: "renewal@example.com" })).body;
    const product = (await client.post("/products", { name: "Plan" })).body;
    const price = (await client.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } })).body;
    expect((await client.post(`/customers/${cus.id}/balance-transactions`, { amount_atom: 500, currency: "usd", description: "Goodwill" })).status).toBe(201);
    const sub = (await client.post("/subscriptions", { customer: cus.id, items: [{ price: price.id }], trial_period_days: 7, default_payment_method: "pm_sandbox_succeeds" })).body;
    const advanced = await client.post(`/${own.sandboxAccountId}/test-clock/advance`, { to: new Date(Date.parse(sub.trial_end) + 3_600_000).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);
    const renewed = (await client.get(`/subscriptions/${sub.id}`)).body;
    const invoice = (await client.get(`/invoices/${renewed.latest_invoice}`)).body;
    expect(invoice).toMatchObject({ status: "paid", total_amount_atom: 2000, starting_balance_atom: 500, ending_balance_atom: 0, paid_amount_atom: 2000, due_amount_atom: 0 });
    expect((await client.get(`/payment-intents/${invoice.payment_intent}`)).body.amount_atom).toBe(1500);
    expect((await client.get(`/customers/${cus.id}`)).body.balances).toEqual({ usd: 0 });
  });
});
