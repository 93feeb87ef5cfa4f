import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { auditAccountMoney, describeDifference } from "@/scripts/audit/money";
import { api, type ApiPath, type ApiResponse, type Client, type Json } from "../helpers/api";
import { arbSequence, CATALOGUE, couponTerms, priceTerms, runSequence, type BillingDriver, type CatalogueIds, type Outcome } from "../helpers/billing-sequences";
import { newMerchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";

/*
 * The billing sequences of tests/helpers/billing-sequences.ts (multi-line taxed invoices with
 * tiered prices, payments, refunds, credit notes by amount and by line and their voids, invoice
 * voids, balance adjustments, coupons, plan changes and a renewal by the test clock, in the
 * customer's currency: usd, eur, jpy or bhd, with currency changes and their 409s) through the
 * real server's HTTP API, the model of the money and every invariant checked after every step,
 * and at each sequence's end what the API shows agreeing with them. RUNS sequences: over HTTP one
 * costs ~0.3 s; the 10,000 a run are tests/property/billing-property.ts (the same verbs,
 * in-process), and the arithmetic's own 10,000-run properties tests/unit/credit-notes.test.ts.
 */

const RUNS = 150;

let sandbox: Client;
let account: string;
let ids: CatalogueIds;

beforeAll(async () => {
  const merchant = await newMerchant();
  account = merchant.sandboxAccountId;
  sandbox = api(merchant.sandboxSecret.token);
  const created = (response: ApiResponse) => {
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  };
  const product = created(await sandbox.post("/products", { name: "Plan" }));
  ids = { prices: [], taxRates: [], coupons: [] };
  for (const price of CATALOGUE.prices) ids.prices.push(created(await sandbox.post("/prices", { product, type: "recurring", recurring: { interval: "month" }, ...priceTerms(price) })));
  for (const [index, rate] of CATALOGUE.taxRates.entries()) {
    ids.taxRates.push(created(await sandbox.post("/tax-rates", { display_name: `Tax ${index}`, percentage: rate.percentE4 / 10_000, inclusive: rate.inclusive })));
  }
  for (const coupon of CATALOGUE.coupons) ids.coupons.push(created(await sandbox.post("/coupons", couponTerms(coupon))));
});

/** 2xx: done; 409 and 422: a refusal (the model says whether it may be); anything else fails the property. */
function outcome<T>(response: ApiResponse, value: (body: Json) => T): Outcome<T> {
  if (response.status === 200 || response.status === 201) return { ok: true, value: value(response.body) };
  expect([409, 422], `${response.status}: ${response.text}`).toContain(response.status);
  return { ok: false, refusal: response.text };
}
const nothing = () => null;

/**
 * Sends a verb again while the service answers it with a retryable problem, as that problem tells a
 * client to: `invoice_locked` (409, `retryable: true`, "nothing was changed") when the app's own
 * background work (an invoice falling overdue on the clock) holds the invoice. A run beside another
 * one met it on a void. Not a refusal the model could agree with: the verb was not looked at.
 */
const RETRYABLE_FOR_MS = 60_000;
const post = (path: ApiPath<"post">, body?: unknown) =>
  eventually(() => sandbox.post(path, body), (response) => !(response.status === 409 && (response.body as { retryable?: unknown } | undefined)?.retryable === true), RETRYABLE_FOR_MS);

const httpDriver: BillingDriver = {
  // Over HTTP the server's clock runs on; the model takes the instants the service recorded (a change request's proration_date).
  now: async () => new Date((await sandbox.get(`/${account}/test-clock`)).body.now as string),
  createCustomer: async (currency) => (await post("/customers", { email: "property@example.com", ...(currency === null ? {} : { currency }) })).body.id,
  charge: async (customer, currency, lines) => {
    const draft = await post("/invoices", { customer, currency, lines });
    if (draft.status !== 201) return outcome(draft, nothing) as Outcome<never>;
    return outcome(await post(`/invoices/${draft.body.id}/finalize`), (body) => ({ id: body.id as string, lines: (body.lines as Json[]).map((line) => line.id as string) }));
  },
  pay: async (id, method) => outcome(await post(`/invoices/${id}/pay`, method === "out_of_band" ? { paid_out_of_band: true } : { payment_method: method }), nothing),
  refund: async (payment, amount) => outcome(await post("/refunds", { payment, amount_atom: amount }), nothing),
  creditNote: async (input) => outcome(await post("/credit-notes", { ...input, reason: "order_change" }), (body) => ({ id: body.id as string })),
  voidCreditNote: async (id) => outcome(await post(`/credit-notes/${id}/void`), nothing),
  voidInvoice: async (id) => outcome(await post(`/invoices/${id}/void`), nothing),
  adjust: async (customer, amount, currency) => outcome(await post(`/customers/${customer}/balance-transactions`, { amount_atom: amount, currency, description: "Property" }), nothing),
  applyCoupon: async (customer, coupon) => outcome(await post(`/customers/${customer}/discount`, { coupon }), nothing),
  setCurrency: async (customer, currency) => outcome(await post(`/customers/${customer}`, { currency }), nothing),
  subscribe: async (customer, price, quantity, method, _metered, sendInvoice) =>
    outcome(
      await post("/subscriptions", {
        customer,
        items: [{ price, quantity }],
        default_payment_method: method,
        ...(sendInvoice ? { collection_method: "send_invoice", days_until_due: sendInvoice.daysUntilDue } : {}),
      }),
      (body) => ({
        id: body.id as string,
        item: body.items[0].id as string,
        invoice: (body.latest_invoice as string | null) ?? null,
      }),
    ),
  change: async (subscription, steps, options) => {
    const path = `/subscriptions/${subscription}/change-requests` as const;
    const request = await post(path, { steps, effective: options.effective, proration_behavior: options.behavior });
    if (request.status !== 201) return { ...(outcome(request, nothing) as { ok: false; refusal: string }), invoice: null, prorationDate: new Date() };
    const prorationDate = new Date(request.body.proration_date as string);
    const applied = await post(`${path}/${request.body.id}/apply`, { payment_method: options.method });
    if (applied.status === 200 || applied.status === 201) return { ok: true, value: { invoice: (applied.body.invoice as string | null) ?? null, prorationDate } };
    const refused = outcome(applied, nothing) as { ok: false; refusal: string };
    // Cancelling the refused request voids its proration invoice.
    const canceled = await post(`${path}/${request.body.id}/cancel`, {});
    expect(canceled.status, canceled.text).toBe(200);
    return { ...refused, invoice: (canceled.body.invoice as string | null) ?? null, prorationDate };
  },
  renew: async (subscription) => {
    const before = (await sandbox.get(`/subscriptions/${subscription}`)).body;
    const to = new Date(new Date(before.current_period_end as string).getTime() + 1_000).toISOString();
    const advanced = await post(`/${account}/test-clock/advance`, { to });
    if (advanced.status !== 200) return outcome(advanced, nothing) as Outcome<never>;
    const after = (await sandbox.get(`/subscriptions/${subscription}`)).body;
    return { ok: true, value: { invoice: after.latest_invoice === before.latest_invoice ? null : (after.latest_invoice as string) } };
  },
  end: async (subscription) => {
    const ended = await post(`/subscriptions/${subscription}/cancel`, {});
    expect(ended.status, ended.text).toBe(200);
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
  const balances: Record<string, number> = (await sandbox.get(`/customers/${customerId}`)).body.balances;
  const ledger: Json[] = (await sandbox.get(`/customers/${customerId}/balance-transactions?limit=100`)).body.items;
  // Per currency: the ledger's rows of a currency sum to the balance in it.
  for (const code of new Set([...Object.keys(balances), ...ledger.map((row) => row.currency as string)])) {
    expect(ledger.filter((row) => row.currency === code).reduce((sum, row) => sum + row.amount_atom, 0), code).toBe(balances[code] ?? 0);
  }
}

describe("the billing invariants and the model of the money, property (over HTTP)", () => {
  it(`${RUNS} random sequences agree with the model, keep every invariant, and the API shows them`, async () => {
    let customers = 0;
    const driver: BillingDriver = {
      ...httpDriver,
      createCustomer: async (currency) => {
        customers += 1;
        return httpDriver.createCustomer(currency);
      },
    };
    await fc.assert(
      fc.asyncProperty(arbSequence, async (steps) => {
        const customer = await runSequence(driver, ids, steps);
        await checkApi(customer);
      }),
      { numRuns: RUNS },
    );
    expect(customers).toBeGreaterThanOrEqual(RUNS);
    // The audit from outside (scripts/audit/money.ts, on the test database of tests/setup/worker-env.ts) must find nothing.
    const differences = await auditAccountMoney({ databaseUrl: process.env.DATABASE_URL ?? "", accountId: account });
    expect(differences.map(describeDifference), "the money audit of the sandbox account").toEqual([]);
  }, 600_000);
});
