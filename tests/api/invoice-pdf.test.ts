import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl, type Json } from "../helpers/api";
import { operationPath } from "@/lib/operation-paths";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { download, expectPdfMatches, pdfText, printedMoney, qpdfCheck, sha256 } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
let product: Json;
let price: Json;
let vat: Json;
let incl: Json;

beforeAll(async () => {
  merchant = await newMerchant();
  await merchant.client.post("/account-settings", {
    business_name: "Beispiel GmbH",
    address: { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" },
    tax_id: "DE136695976",
    support_email: "rechnung@example.de",
    invoice_footer: "Bank: DE89 3704 0044 0532 0130 00",
  });
  product = (await merchant.client.post("/products", { name: "Pro plan" })).body;
  price = (await merchant.client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 123456, type: "one_time", nickname: "Yearly seat" })).body;
  vat = (await merchant.client.post("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false })).body;
  incl = (await merchant.client.post("/tax-rates", { display_name: "VAT reduced", percentage: 7, inclusive: true })).body;
});

async function finalized(m: Merchant, customer: Json, lines: Json[]): Promise<Json> {
  const cus = (await m.client.post("/customers", { email: "buyer@example.com", name: "Ada Lovelace", ...customer })).body;
  const draft = await m.client.post("/invoices", { customer: cus.id, currency: "eur", lines });
  expect(draft.status, draft.text).toBe(201);
  const response = await m.client.post(`/invoices/${draft.body.id}/finalize`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const pdfOf = (m: Merchant, id: string) => download(`${apiBaseUrl()}/invoices/${id}/pdf`, m.secret.token);

describe("the invoice PDF", () => {
  it("prints the invoice as the JSON says, the same bytes at every download, their SHA-256 in the invoice and invoice.finalized", async () => {
    const invoice = await finalized(merchant, { address: { line1: "1 Main St", postal_code: "EC1A 1BB", city: "London", country: "GB" } }, [
      { price: price.id, quantity: 2, tax_rates: [vat.id] },
      { unit_amount_atom: 999, description: "Onboarding workshop", tax_rates: [incl.id] },
    ]);
    expect(invoice).toMatchObject({
      pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      invoice_pdf: expect.stringMatching(new RegExp(`${operationPath("getInvoicePdfForTokenAccount", { invoice_id: invoice.id })}$`)),
      hosted_invoice_url: expect.stringMatching(/\/invoice\/[A-Za-z0-9_-]{43}$/),
      customer_name: "Ada Lovelace",
      customer_email: "buyer@example.com",
    });
    const first = await pdfOf(merchant, invoice.id);
    expect(first.status).toBe(200);
    expect(first.contentType).toBe("application/pdf");
    expect(sha256(first.bytes)).toBe(invoice.pdf_sha256);
    expect(sha256((await pdfOf(merchant, invoice.id)).bytes)).toBe(invoice.pdf_sha256);
    const [event] = (await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${invoice.id}&event_type=invoice.finalized`)).body.items;
    expect(event.data.pdf_sha256).toBe(invoice.pdf_sha256);

    expect(qpdfCheck(first.bytes)).toMatch(/No syntax or stream encoding errors/);
    expect(expectPdfMatches(first.bytes, invoice, ["Pro plan", "Yearly seat", "Onboarding workshop"], "en")).toEqual([]);
    const text = pdfText(first.bytes);
    for (const piece of ["Invoice", "Beispiel GmbH", "Unter den Linden 1", "DE136695976", "Ada Lovelace", "London", "Subtotal", "Total", "Amount due", "Bank: DE89", "VAT 19%", "VAT reduced 7% (incl.)"]) {
      expect(text).toContain(piece);
    }
    expect(text).toContain(printedMoney(invoice.tax_atom - invoice.total_taxes[1].amount_atom, "EUR", "en"));

    // Issued means fixed: later changes of the seller's details do not change the document.
    await merchant.client.post("/account-settings", { business_name: "Renamed AG" });
    expect(sha256((await pdfOf(merchant, invoice.id)).bytes)).toBe(invoice.pdf_sha256);
  });

  it.each([
    ["fr", ["Facture", "Numéro de facture", "Sous-total", "Montant dû", "Désignation"]],
    ["de", ["Rechnung", "Rechnungsnummer", "Zwischensumme", "Fälliger Betrag", "Beschreibung"]],
  ])("in %s: translated labels, dates and money by Intl", async (locale, labels) => {
    const invoice = await finalized(merchant, { preferred_locale: locale }, [{ unit_amount_atom: 123456, description: "Beratung", tax_rates: [vat.id] }]);
    const { bytes } = await pdfOf(merchant, invoice.id);
    const text = pdfText(bytes);
    for (const label of labels) expect(text).toContain(label);
    expect(text).not.toContain("Subtotal");
    expect(expectPdfMatches(bytes, invoice, ["Beratung"], locale)).toEqual([]);
    const issued = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(new Date(invoice.finalized_at));
    expect(text).toContain(issued.replace(/\s+/g, " "));
  });

  it("prints a subscription invoice's service period (its subscription's period when finalized); a one-off invoice has none", async () => {
    const cus = (await merchant.client.post("/customers", { email: "period@example.com", preferred_locale: "de" })).body;
    const monthly = (await merchant.client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 2500, type: "recurring", recurring: { interval: "month" } })).body;
    const sub = await merchant.client.post("/subscriptions", { customer: cus.id, items: [{ price: monthly.id }] });
    expect(sub.status, sub.text).toBe(201);
    const invoice = (await merchant.client.get(`/invoices/${sub.body.latest_invoice}`)).body;
    const text = pdfText((await pdfOf(merchant, invoice.id)).bytes);
    const day = (iso: string) => new Intl.DateTimeFormat("de", { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso)).replace(/\s+/g, " ");
    expect(text).toContain(`Leistungszeitraum: ${day(sub.body.current_period_start)} – ${day(sub.body.current_period_end)}`);
    const oneOff = await finalized(merchant, {}, [{ unit_amount_atom: 100, description: "One-off" }]);
    expect(pdfText((await pdfOf(merchant, oneOff.id)).bytes)).not.toContain("Service period");
  });

  it("prints a tiered line's tiers (units × unit price, flat fees) instead of a unit price of 0.00 (issue 42)", async () => {
    const tiered = (
      await merchant.client.post("/prices", {
        product: product.id,
        currency: "eur",
        type: "one_time",
        nickname: "Seats",
        billing_scheme: "tiered",
        tiers_mode: "graduated",
        tiers: [
          { up_to: 10, unit_amount_atom: 1000, flat_amount_atom: 500 },
          { up_to: null, unit_amount_atom: 800 },
        ],
      })
    ).body;
    const invoice = await finalized(merchant, {}, [{ price: tiered.id, quantity: 12 }]);
    expect(invoice.lines[0]).toMatchObject({ quantity: 12, unit_amount_atom: 0, amount_atom: 10 * 1000 + 500 + 2 * 800 });
    const money = (atoms: number) => printedMoney(atoms, "EUR", "en");
    const text = pdfText((await pdfOf(merchant, invoice.id)).bytes);
    // The line: its quantity, "Tiered" where a unit price would be, its amount; then each tier that priced it.
    expect(text).toContain(`12 Tiered — ${money(12_100)}`);
    expect(text).toContain(`Units 1–10 10 ${money(1000)} ${money(10_000)}`);
    expect(text).toContain(`Flat fee (1–10) ${money(500)}`);
    expect(text).toContain(`Units 11+ 2 ${money(800)} ${money(1600)}`);
    expect(text).not.toContain(`12 ${money(0)}`);
  });

  it("prints the reverse-charge note where it applies", async () => {
    const invoice = await finalized(merchant, { tax_ids: [{ type: "eu_vat", value: "FR40303265045" }] }, [{ unit_amount_atom: 5000, description: "Audit", tax_rates: [vat.id] }]);
    expect(invoice).toMatchObject({ reverse_charge: true, tax_atom: 0 });
    const text = pdfText((await pdfOf(merchant, invoice.id)).bytes);
    expect(text).toContain("Reverse charge");
    expect(text).toContain("FR40303265045");
  });

  it("is a 409 for a draft and a 404 for an unknown invoice or another account's", async () => {
    const cus = (await merchant.client.post("/customers", { email: "d@example.com" })).body;
    const draft = (await merchant.client.post("/invoices", { customer: cus.id, currency: "eur", lines: [{ unit_amount_atom: 1, description: "x" }] })).body;
    expect(draft).toMatchObject({ invoice_pdf: null, hosted_invoice_url: null, pdf_sha256: null });
    expectProblem(await api(merchant.secret.token).get(`/invoices/${draft.id}/pdf`), 409);
    expectProblem(await api(merchant.secret.token).get("/invoices/in_prod_nope/pdf"), 404);
    const other = await newMerchant();
    expectProblem(await api(other.secret.token).get(`/invoices/${draft.id}/pdf`), 404);
  });

  it("is served by the hosted page's token without authentication; a wrong or altered token is a 404", async () => {
    const invoice = await finalized(merchant, {}, [{ unit_amount_atom: 2500, description: "Hosted" }]);
    const token = invoice.hosted_invoice_url.split("/").pop() as string;
    const hosted = await download(`${apiBaseUrl()}/hosted-invoices/${token}/pdf`);
    expect(hosted.status).toBe(200);
    expect(sha256(hosted.bytes)).toBe(invoice.pdf_sha256);
    const altered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const wrong of [altered, "nope", `${token}x`]) {
      const response = await api().get(`/hosted-invoices/${wrong}/pdf`);
      expectProblem(response, 404);
      expect(response.text).not.toContain(invoice.id);
    }
  });
});

describe("the invoice PDF after payment, and the periods of a renewal's lines (sandbox test clock)", () => {
  const DAY = 86_400_000;
  const en = (iso: string | number) => new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso));

  it("a paid invoice's PDF says paid (amount paid, nothing due, the date), a second version with its own SHA-256; the issued one stays", async () => {
    const m = await newMerchant();
    const sandbox = api(m.sandboxSecret.token);
    const cus = (await sandbox.post("/customers", { email: "paid@example.com" })).body;
    const draft = (await sandbox.post("/invoices", { customer: cus.id, currency: "usd", lines: [{ unit_amount_atom: 1_600, description: "Renewal" }] })).body;
    const open = (await sandbox.post(`/invoices/${draft.id}/finalize`)).body;
    expect(open.paid_pdf_sha256).toBeNull();
    const issuedText = pdfText((await download(open.invoice_pdf, m.sandboxSecret.token)).bytes);
    expect(issuedText).toMatch(/Amount due\s+\$16\.00/);

    const paid = await sandbox.post(`/invoices/${open.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", pdf_sha256: open.pdf_sha256, paid_pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(paid.body.paid_pdf_sha256).not.toBe(open.pdf_sha256);
    const [event] = (await sandbox.get(`/${m.sandboxAccountId}/events?aggregate_id=${open.id}&event_type=invoice.paid`)).body.items;
    expect(event.data.paid_pdf_sha256).toBe(paid.body.paid_pdf_sha256);

    // The invoice's link serves the paid version, the same bytes every time, by id and by the hosted token.
    const current = await download(paid.body.invoice_pdf, m.sandboxSecret.token);
    expect(sha256(current.bytes)).toBe(paid.body.paid_pdf_sha256);
    const token = paid.body.hosted_invoice_url.split("/").pop() as string;
    expect(sha256((await download(`${apiBaseUrl()}/hosted-invoices/${token}/pdf`)).bytes)).toBe(paid.body.paid_pdf_sha256);
    expect(qpdfCheck(current.bytes)).toMatch(/No syntax or stream encoding errors/);
    const text = pdfText(current.bytes);
    expect(text).toContain(`Paid on ${en(paid.body.paid_at)}`);
    expect(text).toMatch(/Amount paid\s+\$16\.00/);
    expect(text).toMatch(/Amount due\s+\$0\.00/);
    // The issued version stays downloadable with its own hash.
    const issued = await download(`${paid.body.invoice_pdf}?version=issued`, m.sandboxSecret.token);
    expect(sha256(issued.bytes)).toBe(open.pdf_sha256);
    expect(pdfText(issued.bytes)).not.toContain("Paid on");
  });

  it("each line prints its own period: the usage of the ended period, the licensed items of the period paid in advance", async () => {
    const m = await newMerchant();
    const sandbox = api(m.sandboxSecret.token);
    const account = m.sandboxAccountId;
    const prod = (await sandbox.post(`/${account}/products`, { name: "API" })).body;
    const meter = (await sandbox.post(`/${account}/meters`, { event_name: "calls", display_name: "Calls", aggregation: "sum" })).body;
    const metered = (await sandbox.post(`/${account}/prices`, { product: prod.id, currency: "usd", unit_amount_atom: 10, type: "recurring", recurring: { interval: "month", usage_type: "metered", meter: meter.id } })).body;
    const seat = (await sandbox.post(`/${account}/prices`, { product: prod.id, currency: "usd", unit_amount_atom: 1_000, type: "recurring", recurring: { interval: "month" } })).body;
    const cus = (await sandbox.post(`/${account}/customers`, { email: "periods@example.com" })).body;
    const sub = (await sandbox.post(`/${account}/subscriptions`, { customer: cus.id, items: [{ price: seat.id }, { price: metered.id }] })).body;
    const start = Date.parse(sub.current_period_start);
    const end = Date.parse(sub.current_period_end);
    expect((await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(start + 2 * DAY).toISOString() })).status).toBe(200);
    const used = await sandbox.post(`/${account}/usage-events`, { event_name: "calls", customer: cus.id, identifier: "u1", timestamp: Math.floor((start + DAY) / 1000), payload: { value: 7 } });
    expect(used.status, used.text).toBe(200);
    expect((await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(end + DAY).toISOString() })).status).toBe(200);
    const renewed = (await sandbox.get(`/${account}/subscriptions/${sub.id}`)).body;
    expect(renewed.current_period_start).toBe(sub.current_period_end);
    const invoice = (await sandbox.get(`/${account}/invoices/${renewed.latest_invoice}`)).body;
    expect(invoice.lines.map((line: Json) => line.amount_atom)).toEqual([1_000, 70]);
    const text = pdfText((await download(invoice.invoice_pdf, m.sandboxSecret.token)).bytes);
    // The seat is paid in advance for the new period; the calls were used in the one that ended.
    expect(text).toContain(`Service period: ${en(end)} – ${en(renewed.current_period_end)}`);
    expect(text).toContain(`Service period: ${en(start)} – ${en(end)}`);
    // No single period heads an invoice whose lines bill two.
    expect(text.split("Service period:")).toHaveLength(3);
  });
});
