import { beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

const SELLER_DE = { business_name: "Beispiel GmbH", address: { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" } };

async function rate(m: Merchant, percentage: number, inclusive: boolean, extra: Json = {}): Promise<Json> {
  const response = await m.client.post("/tax-rates", { display_name: inclusive ? "TVA" : "VAT", percentage, inclusive, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function customer(m: Merchant, body: Json = {}): Promise<string> {
  const response = await m.client.post("/customers", { email: "tax@example.com", ...body });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

async function finalized(m: Merchant, customerId: string, lines: Json[]): Promise<Json> {
  const draft = await m.client.post("/invoices", { customer: customerId, currency: "eur", lines });
  expect(draft.status, draft.text).toBe(201);
  const response = await m.client.post(`/invoices/${draft.body.id}/finalize`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("tax rates", () => {
  it("are created, read, listed and archived, with events", async () => {
    const m = await newMerchant();
    const created = await rate(m, 19.6, false, { country: "fr", jurisdiction: "FR", description: "Standard" });
    expect(created).toEqual({
      id: expect.stringMatching(/^txr_prod_/),
      object: "tax_rate",
      display_name: "VAT",
      description: "Standard",
      percentage: 19.6,
      inclusive: false,
      country: "FR",
      jurisdiction: "FR",
      active: true,
      metadata: {},
      livemode: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect((await m.client.get(`/tax-rates/${created.id}`)).body).toEqual(created);
    const archived = await m.client.post(`/tax-rates/${created.id}`, { active: false });
    expect(archived.body.active).toBe(false);
    const other = await rate(m, 7, true);
    expect((await m.client.get("/tax-rates?active=true")).body.items.map((r: Json) => r.id)).toEqual([other.id]);
    expect((await m.client.get("/tax-rates")).body).toMatchObject({ total: 2 });
    const types = (await m.client.get(`/${m.accountId}/events?aggregate_id=${created.id}`)).body.items.map((e: Json) => e.type);
    expect(types).toEqual(["tax_rate.updated", "tax_rate.created"]);
    expectProblem(await m.client.get("/tax-rates/txr_prod_nope"), 404);

    // An archived rate cannot be named anew.
    const cus = await customer(m);
    const refused = await m.client.post("/invoices", { customer: cus, currency: "eur", lines: [{ unit_amount_atom: 100, description: "x", tax_rates: [created.id] }] });
    expectProblem(refused, 422, /archived/);
    expect(refused.body.errors[0].field).toBe("lines.0.tax_rates");
    expectProblem(await m.client.post("/account-settings", { default_tax_rate: created.id }), 422, /archived/);
    expectProblem(await m.client.post("/customers", { email: "a@example.com", default_tax_rate: "txr_prod_nope" }), 422, /No such tax rate/);
  });

  it.each([
    [{ display_name: "VAT", percentage: 101, inclusive: false }, "percentage", 422],
    [{ display_name: "VAT", percentage: 1.23456, inclusive: false }, "percentage", 422],
    [{ display_name: "VAT", percentage: -1, inclusive: false }, "percentage", 422],
    [{ display_name: "VAT", percentage: 19 }, "inclusive", 400],
    [{ display_name: "VAT", percentage: 19, inclusive: false, country: "DEU" }, "country", 422],
  ])("refuses %j naming %s", async (body, field, status) => {
    const response = await merchant.client.post("/tax-rates", body);
    expectProblem(response, status);
    expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
  });

  it("adds exclusive tax and shows inclusive tax per line, rounding half to even, in the invoice and invoice.finalized", async () => {
    const m = await newMerchant();
    const vat = await rate(m, 19, false);
    const tva = await rate(m, 20, true);
    const cus = await customer(m);
    const invoice = await finalized(m, cus, [
      { unit_amount_atom: 1250, quantity: 3, description: "Seats", tax_rates: [vat.id] },
      { unit_amount_atom: 1200, description: "Support", tax_rates: [tva.id] },
      { unit_amount_atom: 50, description: "Untaxed" },
    ]);
    // 3750 × 19 % = 712.5 → 712 (half to even); 1200 contains 1200 × 20/120 = 200.
    expect(invoice).toMatchObject({ subtotal_atom: 5000, tax_atom: 912, total_amount_atom: 5712, due_amount_atom: 5712, reverse_charge: false });
    expect(invoice.total_taxes).toEqual([
      { tax_rate: vat.id, amount_atom: 712, inclusive: false, taxable_amount_atom: 3750, taxability_reason: "standard_rated" },
      { tax_rate: tva.id, amount_atom: 200, inclusive: true, taxable_amount_atom: 1200, taxability_reason: "standard_rated" },
    ]);
    expect(invoice.lines.map((line: Json) => line.tax_amounts.map((t: Json) => t.amount_atom))).toEqual([[712], [200], []]);
    const [event] = (await m.client.get(`/${m.accountId}/events?aggregate_id=${invoice.id}&event_type=invoice.finalized`)).body.items;
    expect(event.data).toMatchObject({ tax_atom: 912, total_taxes: invoice.total_taxes, number: invoice.number });
  });

  it("applies the customer's default, else the account's, to lines naming none, after the discount's share", async () => {
    const m = await newMerchant();
    const accountRate = await rate(m, 10, false);
    const customerRate = await rate(m, 5.5, false);
    await m.client.post("/account-settings", { default_tax_rate: accountRate.id });
    const plain = await customer(m);
    const special = await customer(m, { default_tax_rate: customerRate.id });
    const coupon = (await m.client.post("/coupons", { percent_off: 50, duration: "forever" })).body;
    await m.client.post(`/customers/${plain}/discount`, { coupon: coupon.id });

    const a = await finalized(m, plain, [{ unit_amount_atom: 1001, description: "A" }]);
    // 1001 − 500 (50 % floored) = 501 taxable; 10 % = 50.1 → 50.
    expect(a).toMatchObject({ discount_atom: 500, tax_atom: 50, total_amount_atom: 551 });
    expect(a.lines[0]).toMatchObject({ tax_rates: [accountRate.id], discount_atom: 500 });
    const b = await finalized(m, special, [{ unit_amount_atom: 2000, description: "B" }]);
    expect(b).toMatchObject({ tax_atom: 110, total_amount_atom: 2110 });
    expect(b.lines[0].tax_rates).toEqual([customerRate.id]);
  });

  it("a subscription's invoice follows the same rules (the shared finalization)", async () => {
    const m = await newMerchant();
    const vat = await rate(m, 19, false);
    await m.client.post("/account-settings", { default_tax_rate: vat.id });
    const cus = await customer(m);
    const product = (await m.client.post("/products", { name: "Pro" })).body;
    const price = (await m.client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } })).body;
    const sub = await m.client.post("/subscriptions", { customer: cus, items: [{ price: price.id }] });
    expect(sub.status, sub.text).toBe(201);
    const invoice = (await m.client.get(`/invoices/${sub.body.latest_invoice}`)).body;
    expect(invoice).toMatchObject({ subtotal_atom: 1000, tax_atom: 190, total_amount_atom: 1190, number: expect.stringMatching(/-0001$/) });
  });

  it("a subscription item's own rates win over the defaults, on its first invoice and on added items; an unknown rate changes nothing", async () => {
    const m = await newMerchant();
    const standard = await rate(m, 19, false);
    const reduced = await rate(m, 7, false);
    await m.client.post("/account-settings", { default_tax_rate: standard.id });
    const cus = await customer(m);
    const product = (await m.client.post("/products", { name: "Books" })).body;
    const recurring = (amount: number) =>
      m.client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } });
    const books = (await recurring(1000)).body;
    const extra = (await recurring(500)).body;

    const refused = await m.client.post("/subscriptions", { customer: cus, items: [{ price: books.id, tax_rates: ["txr_prod_nope"] }] });
    expectProblem(refused, 422);
    expect(refused.body.errors.map((e: Json) => e.field)).toContain("items.0.tax_rates");
    expect((await m.client.get(`/subscriptions?customer=${cus}`)).body.items).toHaveLength(0);

    const sub = await m.client.post("/subscriptions", { customer: cus, items: [{ price: books.id, tax_rates: [reduced.id] }] });
    expect(sub.status, sub.text).toBe(201);
    const taxRatesOfItems = async () =>
      (await m.client.get(`/subscriptions/${sub.body.id}/items`)).body.items.map((item: Json) => item.tax_rates);
    expect(await taxRatesOfItems()).toEqual([[reduced.id]]);
    const invoice = (await m.client.get(`/invoices/${sub.body.latest_invoice}`)).body;
    expect(invoice).toMatchObject({ subtotal_atom: 1000, tax_atom: 70, total_amount_atom: 1070 });
    expect(invoice.lines[0].tax_rates).toEqual([reduced.id]);

    const added = await m.client.post(`/subscriptions/${sub.body.id}/items`, { price: extra.id, tax_rates: [reduced.id] });
    expect(added.status, added.text).toBe(200);
    expect(await taxRatesOfItems()).toEqual([[reduced.id], [reduced.id]]);
    expectProblem(await m.client.post(`/subscriptions/${sub.body.id}/items`, { price: extra.id, tax_rates: ["txr_prod_nope"] }), 422);
  });

  it("reverse-charges a B2B customer with a VAT id of another EU country: 0 tax, flagged; same country is taxed", async () => {
    const m = await newMerchant();
    await m.client.post("/account-settings", SELLER_DE);
    const vat = await rate(m, 19, false);
    const french = await customer(m, { tax_ids: [{ type: "eu_vat", value: "FR40303265045" }] });
    const german = await customer(m, { tax_ids: [{ type: "eu_vat", value: "DE136695976" }] });
    const reversed = await finalized(m, french, [{ unit_amount_atom: 1000, description: "Consulting", tax_rates: [vat.id] }]);
    expect(reversed).toMatchObject({ reverse_charge: true, tax_atom: 0, total_amount_atom: 1000 });
    expect(reversed.total_taxes).toEqual([{ tax_rate: vat.id, amount_atom: 0, inclusive: false, taxable_amount_atom: 1000, taxability_reason: "reverse_charge" }]);
    const domestic = await finalized(m, german, [{ unit_amount_atom: 1000, description: "Consulting", tax_rates: [vat.id] }]);
    expect(domestic).toMatchObject({ reverse_charge: false, tax_atom: 190, total_amount_atom: 1190 });
  });
});
