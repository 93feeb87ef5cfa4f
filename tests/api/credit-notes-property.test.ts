import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { api, type ApiResponse, type Client, type Json } from "../helpers/api";
import { arbSequence, PLAN_AMOUNTS, runSequence, type BillingDriver, type Outcome } from "../helpers/billing-sequences";
import { newMerchant } from "../helpers/merchant";

/*
 * The billing invariants' random sequences (tests/helpers/billing-sequences.ts: charges, payments,
 * refunds, credit notes pre and post payment and their voids, balance adjustments, plan changes)
 * through the real server's HTTP API, every invariant checked after every step, and at each
 * sequence's end what the API shows agreeing with them. RUNS sequences: over HTTP one costs
 * ~0.3 s; the 10,000 a run are tests/api/billing-property.test.ts (the same verbs, in-process), and
 * the arithmetic's own 10,000-run properties tests/unit/credit-notes.test.ts.
 */

const RUNS = 150;

let sandbox: Client;
let prices: string[];

beforeAll(async () => {
  sandbox = api((await newMerchant()).sandboxSecret.token);
  const product = (await sandbox.post("/products", { name: "Plan" })).body.id;
  prices = [];
  for (const amount of PLAN_AMOUNTS) {
    const price = await sandbox.post("/prices", { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } });
    expect(price.status, price.text).toBe(201);
    prices.push(price.body.id);
  }
});

/** 2xx: done; 409 and 422: a refusal the sequence goes on from; anything else fails the property. */
function outcome<T>(response: ApiResponse, value: (body: Json) => T): Outcome<T> {
  if (response.status === 200 || response.status === 201) return { ok: true, value: value(response.body) };
  expect([409, 422], `${response.status}: ${response.text}`).toContain(response.status);
  return { ok: false, refusal: response.text };
}
const nothing = () => null;

const httpDriver: BillingDriver = {
  createCustomer: async () => (await sandbox.post("/customers", { email: "property@example.com" })).body.id,
  charge: async (customer, amount) => {
    const draft = await sandbox.post("/invoices", { customer, currency: "usd", lines: [{ unit_amount_atom: amount, description: "Charge" }] });
    expect(draft.status, draft.text).toBe(201);
    return outcome(await sandbox.post(`/invoices/${draft.body.id}/finalize`), nothing);
  },
  pay: async (id, method) => outcome(await sandbox.post(`/invoices/${id}/pay`, method === "out_of_band" ? { paid_out_of_band: true } : { payment_method: method }), nothing),
  refund: async (payment, amount) => outcome(await sandbox.post("/refunds", { payment, amount_atom: amount }), nothing),
  creditNote: async (input) => outcome(await sandbox.post("/credit-notes", { ...input, reason: "order_change" }), nothing),
  voidCreditNote: async (id) => outcome(await sandbox.post(`/credit-notes/${id}/void`), nothing),
  adjust: async (customer, amount) => outcome(await sandbox.post(`/customers/${customer}/balance-transactions`, { amount_atom: amount, currency: "usd", description: "Property" }), nothing),
  subscribe: async (customer, price, method) =>
    outcome(await sandbox.post("/subscriptions", { customer, items: [{ price }], default_payment_method: method }), (body) => ({ id: body.id as string, item: body.items[0].id as string })),
  changePlan: async (subscription, item, price, method) => {
    const path = `/subscriptions/${subscription}/change-requests` as const;
    const request = await sandbox.post(path, { steps: [{ type: "switch_price", item, price }], effective: "now" });
    if (request.status !== 201) return outcome(request, nothing);
    return outcome(await sandbox.post(`${path}/${request.body.id}/apply`, { payment_method: method }), nothing);
  },
};

/** What the API shows of the customer: the same invariants, on the serialized objects. */
async function checkApi(customerId: string): Promise<void> {
  const invoices: Json[] = (await sandbox.get(`/invoices?customer=${customerId}&limit=100`)).body.items;
  const notes: Json[] = (await sandbox.get(`/credit-notes?customer=${customerId}&limit=100`)).body.items;
  for (const invoice of invoices) {
    const issued = notes.filter((note) => note.invoice === invoice.id && note.status === "issued");
    const credited = issued.reduce((sum, note) => sum + note.total_amount_atom, 0);
    expect(credited).toBeLessThanOrEqual(invoice.total_amount_atom);
    expect(credited).toBe(invoice.pre_payment_credit_notes_amount_atom + invoice.post_payment_credit_notes_amount_atom);
    expect(invoice.due_amount_atom).toBeGreaterThanOrEqual(0);
    if (invoice.status === "paid") expect([invoice.due_amount_atom, invoice.paid_amount_atom]).toEqual([0, invoice.total_amount_atom]);
  }
  const balances = (await sandbox.get(`/customers/${customerId}`)).body.balances;
  const ledger: Json[] = (await sandbox.get(`/customers/${customerId}/balance-transactions?limit=100`)).body.items;
  expect(ledger.reduce((sum, row) => sum + row.amount_atom, 0)).toBe(balances.usd ?? 0);
}

describe("the billing invariants, property (over HTTP)", () => {
  it(`${RUNS} random sequences keep every invariant, and the API shows them`, async () => {
    let customers = 0;
    const driver: BillingDriver = {
      ...httpDriver,
      createCustomer: async () => {
        customers += 1;
        return httpDriver.createCustomer();
      },
    };
    await fc.assert(
      fc.asyncProperty(arbSequence, async (steps) => {
        const customer = await runSequence(driver, prices, steps, { fullCheckEachStep: true });
        await checkApi(customer);
      }),
      { numRuns: RUNS },
    );
    expect(customers).toBeGreaterThanOrEqual(RUNS);
  }, 600_000);
});
