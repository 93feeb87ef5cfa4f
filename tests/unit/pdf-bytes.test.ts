import { describe, expect, it } from "vitest";
import { renderCreditNotePdf } from "@/lib/credit-notes/pdf";
import type { CreditNoteRow } from "@/lib/credit-notes/serialize";
import { renderInvoicePdf, sha256Hex } from "@/lib/invoices/pdf/render";
import type { InvoiceDocument } from "@/lib/invoices/schema";
import type { InvoiceLineRow, InvoiceRow } from "@/lib/invoices/serialize";
import { expectPdfMatches, expectPdfMatchesAsync } from "../helpers/pdf";

/*
 * The bytes of issued documents (docs/invoices-and-tax.md, "As issued, then paid"): an invoice's
 * `pdf_sha256` and `paid_pdf_sha256` and a credit note's `pdf_sha256` are recorded once and every
 * later render must give the same bytes. These hashes were taken from the renderers before the
 * standard fonts' metrics were parsed once per process (lib/invoices/pdf/standard-fonts.ts): a
 * render with the shared metrics, first or hundredth in the process, is byte for byte what pdfkit
 * gave when it parsed them for every document. A pdfkit upgrade that changes them changes every
 * issued document's hash: that is a migration of the recorded hashes, not a new expectation here.
 */

const issued = new Date("2026-03-01T09:30:00.000Z");
const rates = [
  { id: "txr_vat", display_name: "VAT", percentage_e4: 200_000, inclusive: false },
  { id: "txr_city", display_name: "City tax", percentage_e4: 12_500, inclusive: false },
  { id: "txr_incl", display_name: "Included VAT", percentage_e4: 70_000, inclusive: true },
];

function document(locale: InvoiceDocument["locale"]): InvoiceDocument {
  return {
    locale,
    seller: { name: "Acme Billing SAS", address: { line1: "1 rue de la Paix", line2: "Bâtiment B", postal_code: "75002", city: "Paris", country: "FR" }, tax_id: "FR12345678901", email: "billing@acme.example" },
    buyer: { name: "Jörg Müller GmbH", email: "jorg@example.com", address: { line1: "Hauptstraße 5", line2: null, postal_code: "10115", city: "Berlin", country: "DE" }, tax_ids: ["DE123456789"] },
    lines: [
      { title: "Pro plan (monthly)", detail: "Seats for the whole team", period: { start: "2026-03-01T00:00:00.000Z", end: "2026-04-01T00:00:00.000Z" } },
      {
        title: "API calls",
        detail: null,
        tiers: [
          { from: 1, to: 1000, units: 1000, unit_amount_atom: 2, flat_amount_atom: 500, amount_atom: 2500 },
          { from: 1001, to: null, units: 234, unit_amount_atom: 1, flat_amount_atom: 0, amount_atom: 234 },
        ],
      },
      { title: "A long description that wraps over more than one line of the invoice's description column, as a custom line may", detail: null },
    ],
    tax_rates: rates,
    footer: "Payable within 30 days. Late payments bear interest at three times the legal rate.",
    period: null,
  };
}

const line = (index: number, fields: Partial<InvoiceLineRow>) => ({ id: `il_${index}`, description: null, quantity: 1, unitAmountAtom: 0, amountAtom: 0, taxRateIds: [], ...fields }) as unknown as InvoiceLineRow;
const lines = [
  line(1, { quantity: 3, unitAmountAtom: 4_999, amountAtom: 14_997, taxRateIds: ["txr_vat", "txr_city"] }),
  line(2, { quantity: 1_234, unitAmountAtom: 0, amountAtom: 2_734, taxRateIds: ["txr_incl"] }),
  line(3, { quantity: 1, unitAmountAtom: 123_456_789, amountAtom: 123_456_789, taxRateIds: [] }),
];

function invoice(currency: string, fields: Partial<InvoiceRow> = {}): InvoiceRow {
  return {
    id: "in_test_0001",
    number: "ACME-0042",
    currency,
    created: new Date("2026-02-28T12:00:00.000Z"),
    finalizedAt: issued,
    dueDate: new Date("2026-03-31T00:00:00.000Z"),
    paidAt: null,
    reverseCharge: false,
    subtotalAtom: 123_474_520,
    discountAtom: 1_500,
    totalTaxes: [
      { tax_rate: "txr_vat", amount_atom: 2_699, inclusive: false, taxable_amount_atom: 13_497, taxability_reason: "standard_rated" },
      { tax_rate: "txr_city", amount_atom: 169, inclusive: false, taxable_amount_atom: 13_497, taxability_reason: "standard_rated" },
      { tax_rate: "txr_incl", amount_atom: 179, inclusive: true, taxable_amount_atom: 2_734, taxability_reason: "standard_rated" },
    ],
    totalAmountAtom: 123_475_888,
    startingBalanceAtom: -2_000,
    endingBalanceAtom: 0,
    prePaymentCreditNotesAmountAtom: 0,
    ...fields,
  } as unknown as InvoiceRow;
}

function creditNote(currency: string, pdfLayout: number): CreditNoteRow {
  return {
    id: "cn_test_0001",
    number: "ACME-0042-CN-01",
    invoiceId: "in_test_0001",
    currency,
    created: new Date("2026-03-05T10:00:00.000Z"),
    reason: "order_change",
    memo: "Two seats returned",
    pdfLayout,
    type: "post_payment",
    lines: [
      { invoice_line: "il_1", description: "Pro plan (monthly)", quantity: 2, amount_atom: 9_998, discount_atom: 0, tax_amounts: [{ tax_rate: "txr_vat", amount_atom: 2_000, inclusive: false, taxable_amount_atom: 9_998, taxability_reason: "standard_rated" }], total_amount_atom: 11_998 },
      { invoice_line: null, description: null, quantity: null, amount_atom: 500, discount_atom: 0, tax_amounts: [], total_amount_atom: 500 },
    ],
    subtotalAtom: 10_498,
    discountAtom: 0,
    totalTaxes: [{ tax_rate: "txr_vat", amount_atom: 2_000, inclusive: false, taxable_amount_atom: 9_998, taxability_reason: "standard_rated" }],
    totalAmountAtom: 12_498,
    refundAmountAtom: 10_000,
    creditAmountAtom: 2_498,
    outOfBandAmountAtom: 0,
  } as unknown as CreditNoteRow;
}

/** The documents, each rendered twice in a row (the second with whatever the first left cached). */
const renders: [string, () => Promise<Buffer>, string][] = [
  ["an English invoice as issued", () => renderInvoicePdf(invoice("usd"), lines, document("en")), "af1f524603d4b991ac96363278c59d53daccd73542f2c8fba55e4314e12f48c3"],
  ["an English invoice once paid", () => renderInvoicePdf(invoice("usd", { paidAt: new Date("2026-03-02T08:00:00.000Z") }), lines, document("en"), "paid"), "a0038e700356cb4a4e627b4352b672c6d06e862e9d3579b805541225e4c41a1a"],
  ["a French invoice under reverse charge", () => renderInvoicePdf(invoice("eur", { reverseCharge: true }), lines, document("fr")), "984450f173ccbf521ee79de97bc546807dc79643ad1005b66fe4f9f7403bdf58"],
  ["a German invoice", () => renderInvoicePdf(invoice("eur"), lines, document("de")), "1e5a7823a840dc6b88517f0f419b921570912c3edd51a7e748472cdda739d15e"],
  ["a credit note, layout 2", () => renderCreditNotePdf(creditNote("usd", 2), { number: "ACME-0042", document: document("en"), reverseCharge: false }), "8eff1f03bcc3cdcdb6a62bf1efbc858849078683a9c610348756b09736f35f49"],
  ["a French credit note, layout 1", () => renderCreditNotePdf(creditNote("eur", 1), { number: "ACME-0042", document: document("fr"), reverseCharge: false }), "49c0575de2637b708609a3c736be0d4670f3f773a03cab967967a7b7b6d2b16c"],
];

describe("issued documents' bytes", () => {
  it.each(renders)("%s renders the bytes issued, every time", async (_name, render, expected) => {
    const first = sha256Hex(await render());
    expect(sha256Hex(await render())).toBe(first);
    expect(first).toBe(expected);
  });
});

describe("the run's check of issued PDFs (tests/helpers/pdf-check.ts)", () => {
  const printed = (total: number) => ({ number: "ACME-0042", currency: "usd", subtotal_atom: 123_474_520, tax_atom: 3_047, total_amount_atom: total, total_taxes: [{ amount_atom: 2_699 }], lines: lines.map((row) => ({ amount_atom: row.amountAtom })) });

  it("finds what the text lacks, side by side as one at a time", async () => {
    const bytes = await renderInvoicePdf(invoice("usd"), lines, document("en"));
    expect(await expectPdfMatchesAsync(bytes, printed(123_475_888), ["Pro plan (monthly)"], "en")).toEqual([]);
    expect(expectPdfMatches(bytes, printed(123_475_888), ["Pro plan (monthly)"], "en")).toEqual([]);
    const wrong = await expectPdfMatchesAsync(bytes, printed(123_475_889), ["Enterprise plan"], "en");
    expect(wrong).toEqual(['missing "Enterprise plan"', 'missing "$1,234,758.89"']);
    expect(expectPdfMatches(bytes, printed(123_475_889), ["Enterprise plan"], "en")).toEqual(wrong);
    // A broken file fails the check, as one at a time (pdftotext cannot read it).
    await expect(expectPdfMatchesAsync(Buffer.from("%PDF-1.3\nnot a PDF"), printed(1), [], "en")).rejects.toThrow(/pdftotext/);
    expect(() => expectPdfMatches(Buffer.from("%PDF-1.3\nnot a PDF"), printed(1), [], "en")).toThrow(/pdftotext/);
  });
});
