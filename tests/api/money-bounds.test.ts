import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl, type ApiPath, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { download, pdfText } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";

/* Amounts stay exact integers (issue 42, rule 6; docs/billing.md, "Bounds, currencies and what the database refuses"). */

let sandbox: Client;
let sandboxToken: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  sandboxToken = merchant.sandboxSecret.token;
  sandbox = api(sandboxToken);
});

describe("an invoice's total after exclusive tax", () => {
  it("is refused at finalization beyond 2^53 - 1 although its subtotal fits; the draft stays as it was", async () => {
    const vat = (await sandbox.post("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false })).body;
    const owner = (await sandbox.post("/customers", { email: "big@example.com" })).body;
    // 8e15 fits (< 9,007,199,254,740,991); with 19 % on top (9.52e15) it does not.
    const draft = await sandbox.post("/invoices", {
      customer: owner.id,
      currency: "usd",
      lines: [{ unit_amount_atom: 8_000_000_000_000_000, description: "Large", tax_rates: [vat.id] }],
    });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body.subtotal_atom).toBe(8_000_000_000_000_000);
    const before = (await sandbox.get(`/invoices/${draft.body.id}`)).body;
    const finalized = await sandbox.post(`/invoices/${draft.body.id}/finalize`);
    expectProblem(finalized, 422, /total after exclusive tax \(9520000000000000\) exceeds 2\^53 - 1/);
    expect(finalized.body.errors).toEqual([{ field: "lines", message: expect.stringMatching(/exceeds 2\^53 - 1/) }]);
    expect((await sandbox.get(`/invoices/${draft.body.id}`)).body).toEqual(before);
    expect(before).toMatchObject({ status: "draft" });

    // The same amount with the tax included fits: it is refused only for what it adds.
    const included = (await sandbox.post("/tax-rates", { display_name: "VAT incl.", percentage: 19, inclusive: true })).body;
    const fits = await sandbox.post("/invoices", {
      customer: owner.id,
      currency: "usd",
      lines: [{ unit_amount_atom: 8_000_000_000_000_000, description: "Large", tax_rates: [included.id] }],
    });
    const open = await sandbox.post(`/invoices/${fits.body.id}/finalize`);
    expect(open.status, open.text).toBe(200);
    expect(open.body.total_amount_atom).toBe(8_000_000_000_000_000);
  });
});

describe("currencies", () => {
  it("are ISO 4217 codes of the project's table: HUF is accepted (lowercased), unknown codes are a 422 on every operation that takes one", async () => {
    const product = (await sandbox.post("/products", { name: "Currencies" })).body;
    const owner = (await sandbox.post("/customers", { email: "currencies@example.com" })).body;
    const forint = await sandbox.post("/prices", { product: product.id, currency: "HUF", unit_amount_atom: 150_000, type: "one_time" });
    expect(forint.status, forint.text).toBe(201);
    expect(forint.body.currency).toBe("huf");

    const bodies: [ApiPath<"post">, (currency: string) => Json][] = [
      ["/prices", (currency) => ({ product: product.id, currency, unit_amount_atom: 1000, type: "one_time" })],
      ["/invoices", (currency) => ({ customer: owner.id, currency, lines: [{ unit_amount_atom: 1000, description: "Line" }] })],
      ["/coupons", (currency) => ({ amount_off_atom: 100, currency, duration: "forever" })],
      ["/payment-intents", (currency) => ({ amount_atom: 1000, currency })],
      [`/customers/${owner.id}/balance-transactions`, (currency) => ({ amount_atom: 1000, currency, description: "Goodwill" })],
    ];
    for (const [path, body] of bodies) {
      for (const code of ["zzz", "XAU", "xxx"]) {
        const response = await sandbox.post(path, body(code));
        expectProblem(response, 422, new RegExp(`'${code}' is not an ISO 4217 currency code`));
        expect(response.body.errors, `${path} ${code}`).toEqual([{ field: "currency", message: expect.stringMatching(/ISO 4217/) }]);
      }
    }
    // Nothing was made by the refusals.
    const prices = (await sandbox.get(`/prices?limit=100`)).body.items.filter((price: Json) => price.product === product.id);
    expect(prices.map((price: Json) => price.currency)).toEqual(["huf"]);
  });

  it("prints the table's decimals on the invoice PDF: 150000 HUF atoms are 1,500.00, 1500 IQD atoms 1.500 (ICU says 0 decimals for both)", async () => {
    const owner = (await sandbox.post("/customers", { email: "forint@example.com" })).body;
    for (const [currency, atoms, printed] of [["huf", 150_000, "HUF 1,500.00"], ["iqd", 1500, "IQD 1.500"]] as const) {
      const draft = await sandbox.post("/invoices", { customer: owner.id, currency, lines: [{ unit_amount_atom: atoms, description: "Seats" }] });
      expect(draft.status, draft.text).toBe(201);
      const open = await sandbox.post(`/invoices/${draft.body.id}/finalize`);
      expect(open.status, open.text).toBe(200);
      const pdf = await download(`${apiBaseUrl()}/invoices/${draft.body.id}/pdf`, sandboxToken);
      expect(pdf.status).toBe(200);
      expect(pdfText(pdf.bytes).replace(/[\s\u00a0\u202f]+/g, " ")).toContain(printed);
    }
  });
});
