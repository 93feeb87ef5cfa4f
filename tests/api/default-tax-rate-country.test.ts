import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";

/*
 * The account's default tax rate applies only to customers in its country (docs/invoices-and-tax.md,
 * "Which rate applies"): German VAT is not charged to a US customer, nor to a customer with no address.
 */

const BERLIN = { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" };
const BOSTON = { line1: "1 Main St", postal_code: "02110", city: "Boston", country: "US" };

async function rate(m: Merchant, extra: Json): Promise<Json> {
  const response = await m.client.post("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function invoiceFor(m: Merchant, customer: Json): Promise<Json> {
  const created = await m.client.post("/customers", { email: "where@example.com", ...customer });
  expect(created.status, created.text).toBe(201);
  const draft = await m.client.post("/invoices", { customer: created.body.id, currency: "eur", lines: [{ unit_amount_atom: 10_000, description: "Consulting" }] });
  expect(draft.status, draft.text).toBe(201);
  const finalized = await m.client.post(`/invoices/${draft.body.id}/finalize`);
  expect(finalized.status, finalized.text).toBe(200);
  return finalized.body;
}

describe("the account's default tax rate and the customer's country", () => {
  it("a rate with a country applies to customers whose address is in it, not to others nor to a customer without an address", async () => {
    const m = await newMerchant();
    const vat = await rate(m, { country: "DE", jurisdiction: "DE" });
    expect((await m.client.post("/account-settings", { default_tax_rate: vat.id })).status).toBe(200);

    const german = await invoiceFor(m, { address: BERLIN });
    expect(german).toMatchObject({ subtotal_atom: 10_000, tax_atom: 1_900, total_amount_atom: 11_900 });
    expect(german.lines[0].tax_rates).toEqual([vat.id]);

    for (const customer of [{ address: BOSTON }, {}]) {
      const invoice = await invoiceFor(m, customer);
      expect(invoice).toMatchObject({ subtotal_atom: 10_000, tax_atom: 0, total_amount_atom: 10_000, total_taxes: [] });
      expect(invoice.lines[0].tax_rates).toEqual([]);
    }
  });

  it("a rate without a country applies to every customer, with or without an address", async () => {
    const m = await newMerchant();
    const everywhere = await rate(m, {});
    expect((await m.client.post("/account-settings", { default_tax_rate: everywhere.id })).status).toBe(200);
    for (const customer of [{ address: BOSTON }, {}]) {
      expect(await invoiceFor(m, customer)).toMatchObject({ tax_atom: 1_900, total_amount_atom: 11_900 });
    }
  });

  it("a customer's own default rate and a line's rates apply as named, wherever the customer is", async () => {
    const m = await newMerchant();
    const vat = await rate(m, { country: "DE" });
    expect(await invoiceFor(m, { address: BOSTON, default_tax_rate: vat.id })).toMatchObject({ tax_atom: 1_900 });
    const created = (await m.client.post("/customers", { email: "named@example.com" })).body;
    const draft = await m.client.post("/invoices", { customer: created.id, currency: "eur", lines: [{ unit_amount_atom: 10_000, description: "x", tax_rates: [vat.id] }] });
    expect((await m.client.post(`/invoices/${draft.body.id}/finalize`)).body).toMatchObject({ tax_atom: 1_900 });
  });
});
