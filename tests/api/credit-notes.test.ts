import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { download, pdfText, printedMoney, qpdfCheck, sha256 } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";

/* Credit notes (docs/credit-notes-and-balance.md): pre- and post-payment, numbering, void, preview, PDF, validation. */

let merchant: Merchant;
let sandbox: Client;
let vat: Json;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  const settings = await sandbox.post("/account-settings", { business_name: "Gutschrift GmbH", invoice_prefix: "GUT", default_locale: "de" });
  expect(settings.status, settings.text).toBe(200);
  vat = (await sandbox.post("/tax-rates", { display_name: "USt.", percentage: 19, inclusive: false })).body;
});

async function customer(extra: Json = {}): Promise<Json> {
  const response = await sandbox.post("/customers", { email: "credit@example.com", name: "Credit Customer", ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** An open invoice: 3 × 1000 and 1 × 500, both at 19 % exclusive: total 3570 + 595 = 4165. */
async function openInvoice(cus?: Json): Promise<Json> {
  const owner = cus ?? (await customer());
  const draft = await sandbox.post("/invoices", {
    customer: owner.id,
    currency: "eur",
    lines: [
      { unit_amount_atom: 1000, quantity: 3, description: "Seats", tax_rates: [vat.id] },
      { unit_amount_atom: 500, description: "Setup", tax_rates: [vat.id] },
    ],
  });
  expect(draft.status, draft.text).toBe(201);
  const open = await sandbox.post(`/invoices/${draft.body.id}/finalize`);
  expect(open.status, open.text).toBe(200);
  return open.body;
}

async function paidInvoice(method = "pm_sandbox_succeeds"): Promise<Json> {
  const invoice = await openInvoice();
  const paid = await sandbox.post(`/invoices/${invoice.id}/pay`, { payment_method: method });
  expect(paid.status, paid.text).toBe(200);
  expect(paid.body.status).toBe("paid");
  return paid.body;
}

const invoiceOf = async (id: string) => (await sandbox.get(`/invoices/${id}`)).body;
const notesOf = async (invoice: string) => (await sandbox.get(`/credit-notes?invoice=${invoice}&limit=100`)).body;
const typesOf = async (aggregateId: string) =>
  ((await sandbox.get(`/${merchant.sandboxAccountId}/events?aggregate_id=${aggregateId}&limit=100`)).body.items as Json[]).map((event) => event.type).reverse();

/** Everything but what only a stored credit note has. */
const comparable = (note: Json) => {
  const { id: _id, created: _created, updated: _updated, pdf: _pdf, pdf_sha256: _sha, refunds: _refunds, customer_balance_transaction: _cbt, ...rest } = note;
  return rest;
};

describe("pre-payment credit notes", () => {
  it("credit lines with their taxes, lower the amount due, are numbered GUT-CN-…, and the preview equals what is issued", async () => {
    const invoice = await openInvoice();
    expect(invoice).toMatchObject({ total_amount_atom: 4165, due_amount_atom: 4165, pre_payment_credit_notes_amount_atom: 0, post_payment_credit_notes_amount_atom: 0 });
    const seats = invoice.lines[0];
    const body = { invoice: invoice.id, lines: [{ invoice_line: seats.id, quantity: 1 }], reason: "order_change", memo: "One seat less" };
    const preview = await sandbox.post("/credit-notes/preview", body);
    expect(preview.status, preview.text).toBe(200);
    expect((await notesOf(invoice.id)).total).toBe(0);

    const created = await sandbox.post("/credit-notes", body);
    expect(created.status, created.text).toBe(201);
    const note = created.body;
    expect(note).toMatchObject({
      id: expect.stringMatching(/^cn_[a-z]+_[0-9a-z]{29}$/),
      object: "credit_note",
      number: expect.stringMatching(/^GUT-CN-\d{4}$/),
      invoice: invoice.id,
      customer: invoice.customer,
      currency: "eur",
      status: "issued",
      type: "pre_payment",
      reason: "order_change",
      memo: "One seat less",
      subtotal_atom: 1000,
      discount_atom: 0,
      tax_atom: 190,
      total_amount_atom: 1190,
      refund_amount_atom: 0,
      credit_amount_atom: 0,
      out_of_band_amount_atom: 0,
      refunds: [],
      customer_balance_transaction: null,
      pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      voided_at: null,
      livemode: false,
    });
    expect(note.lines).toEqual([
      {
        invoice_line: seats.id,
        description: "Seats",
        quantity: 1,
        amount_atom: 1000,
        discount_atom: 0,
        tax_amounts: [expect.objectContaining({ tax_rate: vat.id, amount_atom: 190, inclusive: false })],
        total_amount_atom: 1190,
      },
    ]);
    expect(comparable(preview.body)).toEqual(comparable(note));
    expect(preview.body.pdf).toBeNull();
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: "open", due_amount_atom: 2975, pre_payment_credit_notes_amount_atom: 1190 });
    expect((await sandbox.get(`/credit-notes/${note.id}`)).body).toEqual(note);
    expect(await typesOf(note.id)).toEqual(["credit_note.created"]);

    // The next one takes the next number; both are listed, newest first, by invoice and by customer.
    const second = (await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 595, reason: "duplicate" })).body;
    expect(Number(second.number.slice(-4))).toBe(Number(note.number.slice(-4)) + 1);
    // By amount: the tax is credited in proportion (595 of 4165 → 95 of 665 tax).
    expect(second).toMatchObject({ total_amount_atom: 595, tax_atom: 95, subtotal_atom: 500 });
    const listed = await notesOf(invoice.id);
    expect(listed.items.map((item: Json) => item.id)).toEqual([second.id, note.id]);
    expect((await sandbox.get(`/credit-notes?customer=${invoice.customer}`)).body.items.map((item: Json) => item.id)).toEqual([second.id, note.id]);
    const paged = await sandbox.get(`/credit-notes?invoice=${invoice.id}&limit=1&starting_after=${second.id}`);
    expect(paged.body.items.map((item: Json) => item.id)).toEqual([note.id]);
  });

  it("void: the amount due goes back up; voiding twice is a 409", async () => {
    const invoice = await openInvoice();
    const note = (await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 1000, reason: "product_unsatisfactory" })).body;
    expect((await invoiceOf(invoice.id)).due_amount_atom).toBe(3165);
    const voided = await sandbox.post(`/credit-notes/${note.id}/void`);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body).toMatchObject({ status: "void", voided_at: expect.any(String) });
    expect(await invoiceOf(invoice.id)).toMatchObject({ due_amount_atom: 4165, pre_payment_credit_notes_amount_atom: 0 });
    expectProblem(await sandbox.post(`/credit-notes/${note.id}/void`), 409, /already void/);
    expect(await typesOf(note.id)).toEqual(["credit_note.created", "credit_note.voided"]);
    // The document is as issued: the same bytes after the void.
    const pdf = await download(`${apiBaseUrl()}/credit-notes/${note.id}/pdf`, merchant.sandboxSecret.token);
    expect(sha256(pdf.bytes)).toBe(note.pdf_sha256);
  });

  it("crediting the whole amount due pays the invoice (paid = total, as the spec says)", async () => {
    const invoice = await openInvoice();
    const note = await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 4165, reason: "duplicate" });
    expect(note.status, note.text).toBe(201);
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 4165, pre_payment_credit_notes_amount_atom: 4165 });
    expect(await typesOf(invoice.id)).toEqual(expect.arrayContaining(["invoice.paid", "invoice.payment_succeeded"]));
    // A paid invoice's pre-payment credit note cannot be voided (the invoice is no longer open).
    expectProblem(await sandbox.post(`/credit-notes/${note.body.id}/void`), 409, /open or uncollectible/);
  });
});

describe("post-payment credit notes", () => {
  it("split into a real refund, a balance credit and an out-of-band part", async () => {
    const invoice = await paidInvoice();
    const response = await sandbox.post("/credit-notes", {
      invoice: invoice.id,
      amount_atom: 1000,
      reason: "product_unsatisfactory",
      refund_amount_atom: 600,
      credit_amount_atom: 300,
      out_of_band_amount_atom: 100,
    });
    expect(response.status, response.text).toBe(201);
    const note = response.body;
    expect(note).toMatchObject({ type: "post_payment", total_amount_atom: 1000, refund_amount_atom: 600, credit_amount_atom: 300, out_of_band_amount_atom: 100 });
    expect(note.refunds).toHaveLength(1);
    const refund = (await sandbox.get(`/refunds/${note.refunds[0]}`)).body;
    expect(refund).toMatchObject({ amount_atom: 600, status: "succeeded", reason: "requested_by_customer" });
    expect(await typesOf(refund.id)).toEqual(["refund.created", "refund.updated"]);
    expect((await sandbox.get(`/payments/${refund.payment}`)).body).toMatchObject({ amount_refunded_atom: 600, status: "partially_refunded" });
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: "paid", post_payment_credit_notes_amount_atom: 1000, paid_amount_atom: 4165 });
    expect(await typesOf(invoice.id)).toContain("invoice.refunded");
    const cus = (await sandbox.get(`/customers/${invoice.customer}`)).body;
    expect(cus.balances).toEqual({ eur: 300 });
    const ledger = (await sandbox.get(`/customers/${invoice.customer}/balance-transactions`)).body;
    expect(ledger.items).toEqual([
      expect.objectContaining({ id: note.customer_balance_transaction, type: "credit_note", amount_atom: 300, ending_balance_atom: 300, credit_note: note.id, invoice: invoice.id }),
    ]);
    expectProblem(await sandbox.post(`/credit-notes/${note.id}/void`), 409, /after payment/);
  });

  it("without a split the whole credit goes to the balance; a refund that fails issues nothing", async () => {
    const invoice = await paidInvoice();
    const note = (await sandbox.post("/credit-notes", { invoice: invoice.id, lines: [{ invoice_line: invoice.lines[1].id, amount_atom: 250 }], reason: "order_change" })).body;
    expect(note).toMatchObject({ total_amount_atom: 298, credit_amount_atom: 298, refund_amount_atom: 0 }); // 250 + 47.5 → 48 (half to even)
    expect((await sandbox.get(`/customers/${invoice.customer}`)).body.balances).toEqual({ eur: 298 });

    const refusing = await paidInvoice("pm_sandbox_refund_fails");
    expectProblem(await sandbox.post("/credit-notes", { invoice: refusing.id, amount_atom: 100, reason: "duplicate", refund_amount_atom: 100 }), 409, /refund .* failed/);
    expect((await notesOf(refusing.id)).total).toBe(0);
    expect(await invoiceOf(refusing.id)).toEqual(refusing);
  });
});

describe("refusals change nothing", () => {
  it.each([
    ["lines and amount_atom", (inv: Json) => ({ invoice: inv.id, amount_atom: 10, lines: [{ invoice_line: inv.lines[0].id, quantity: 1 }], reason: "duplicate" }), 422, /amount_atom/],
    ["a line of another invoice", (inv: Json) => ({ invoice: inv.id, lines: [{ invoice_line: "il_test_nope", quantity: 1 }], reason: "duplicate" }), 422, /invoice_line/],
    ["more than the line's quantity", (inv: Json) => ({ invoice: inv.id, lines: [{ invoice_line: inv.lines[0].id, quantity: 4 }], reason: "duplicate" }), 422, /quantity/],
    ["more than the line's amount", (inv: Json) => ({ invoice: inv.id, lines: [{ invoice_line: inv.lines[1].id, amount_atom: 501 }], reason: "duplicate" }), 422, /amount_atom/],
    ["more than the amount due", (inv: Json) => ({ invoice: inv.id, amount_atom: 4166, reason: "duplicate" }), 422, /amount_atom/],
    ["a refund on an open invoice", (inv: Json) => ({ invoice: inv.id, amount_atom: 100, refund_amount_atom: 100, reason: "duplicate" }), 422, /refund_amount_atom/],
    ["an unknown reason", (inv: Json) => ({ invoice: inv.id, amount_atom: 100, reason: "changed_mind" }), 422, /reason/],
    ["an unknown invoice", () => ({ invoice: "in_test_nope", amount_atom: 100, reason: "duplicate" }), 422, /invoice/],
    ["nothing to credit", (inv: Json) => ({ invoice: inv.id, reason: "duplicate" }), 422, /amount_atom/],
  ] as const)("%s", async (_name, body, status, pattern) => {
    const invoice = await openInvoice();
    const response = await sandbox.post("/credit-notes", body(invoice));
    expectProblem(response, status);
    expect(JSON.stringify(response.body)).toMatch(pattern);
    expectProblem(await sandbox.post("/credit-notes/preview", body(invoice)), status);
    expect(await invoiceOf(invoice.id)).toEqual(invoice);
    expect((await notesOf(invoice.id)).total).toBe(0);
  });

  it("post-payment: the split must add up, and a refund needs a payment to refund", async () => {
    const invoice = await paidInvoice();
    expectProblem(await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 1000, refund_amount_atom: 600, credit_amount_atom: 300, reason: "duplicate" }), 422, /must equal/i);
    const outOfBand = await openInvoice();
    const paid = (await sandbox.post(`/invoices/${outOfBand.id}/pay`, { paid_out_of_band: true })).body;
    expectProblem(await sandbox.post("/credit-notes", { invoice: paid.id, amount_atom: 100, refund_amount_atom: 100, reason: "duplicate" }), 422);
    expect(await invoiceOf(paid.id)).toEqual(paid);
    expect(await invoiceOf(invoice.id)).toEqual(invoice);
  });

  it("a draft or void invoice is a 409; an unknown credit note a 404", async () => {
    const cus = await customer();
    const draft = (await sandbox.post("/invoices", { customer: cus.id, currency: "eur", lines: [{ unit_amount_atom: 100, description: "x" }] })).body;
    expectProblem(await sandbox.post("/credit-notes", { invoice: draft.id, amount_atom: 10, reason: "duplicate" }), 409, /draft/);
    const voided = await openInvoice();
    await sandbox.post(`/invoices/${voided.id}/void`);
    expectProblem(await sandbox.post("/credit-notes", { invoice: voided.id, amount_atom: 10, reason: "duplicate" }), 409, /void/);
    expectProblem(await sandbox.get("/credit-notes/cn_test_nope"), 404);
    expectProblem(await sandbox.post("/credit-notes/cn_test_nope/void"), 404);
  });
});

describe("the credit note PDF", () => {
  it.each([
    ["de", "Gutschrift"],
    ["fr", "Avoir"],
    ["en", "Credit note"],
  ] as const)("in the invoice's language (%s), the same bytes every time", async (locale, title) => {
    const invoice = await openInvoice(await customer({ preferred_locale: locale }));
    const note = (await sandbox.post("/credit-notes", { invoice: invoice.id, lines: [{ invoice_line: invoice.lines[0].id, quantity: 2 }], reason: "order_change" })).body;
    const first = await download(`${apiBaseUrl()}/credit-notes/${note.id}/pdf`, merchant.sandboxSecret.token);
    expect(first.status).toBe(200);
    expect(first.contentType).toBe("application/pdf");
    expect(sha256(first.bytes)).toBe(note.pdf_sha256);
    expect(sha256((await download(`${apiBaseUrl()}/credit-notes/${note.id}/pdf`, merchant.sandboxSecret.token)).bytes)).toBe(note.pdf_sha256);
    qpdfCheck(first.bytes);
    const text = pdfText(first.bytes);
    for (const expected of [title, note.number, invoice.number, "Seats", printedMoney(2000, "eur", locale), printedMoney(380, "eur", locale), printedMoney(2380, "eur", locale)]) {
      expect(text).toContain(expected);
    }
  });

  it("prints the seller's and the buyer's addresses and VAT ids as the invoice printed them", async () => {
    const m = await newMerchant();
    const client = api(m.sandboxSecret.token);
    const settings = await client.post("/account-settings", {
      business_name: "Verkäufer GmbH",
      address: { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" },
      tax_id: "DE136695976",
    });
    expect(settings.status, settings.text).toBe(200);
    const buyer = (
      await client.post("/customers", {
        email: "kunde@example.de",
        name: "Kunde AG",
        address: { line1: "Marienplatz 8", postal_code: "80331", city: "München", country: "DE" },
        tax_ids: [{ type: "eu_vat", value: "DE811569869" }],
      })
    ).body;
    const draft = (await client.post("/invoices", { customer: buyer.id, currency: "eur", lines: [{ unit_amount_atom: 1000, description: "Seats" }] })).body;
    const invoice = (await client.post(`/invoices/${draft.id}/finalize`)).body;
    const note = await client.post("/credit-notes", { invoice: invoice.id, amount_atom: 100, reason: "order_change" });
    expect(note.status, note.text).toBe(201);
    const bytes = (await download(`${apiBaseUrl()}/credit-notes/${note.body.id}/pdf`, m.sandboxSecret.token)).bytes;
    expect(sha256(bytes)).toBe(note.body.pdf_sha256);
    const invoiceText = pdfText((await download(invoice.invoice_pdf, m.sandboxSecret.token)).bytes);
    const text = pdfText(bytes);
    for (const printed of ["Unter den Linden 1", "10117 Berlin", "VAT ID: DE136695976", "Marienplatz 8", "80331 München", "VAT ID: DE811569869"]) {
      expect(invoiceText).toContain(printed);
      expect(text).toContain(printed);
    }
  });
});

describe("concurrency", () => {
  it("16 concurrent credit notes on one invoice never over-credit, and their numbers have no gap", async () => {
    const invoice = await openInvoice(); // 4165 due: at most 6 credit notes of 600
    const attempt = async (): Promise<number> => {
      for (;;) {
        const response = await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 600, reason: "duplicate" });
        // The spec's invoice_locked: retry the identical request.
        if (response.status === 409 && response.body.error_code === "invoice_locked") continue;
        return response.status;
      }
    };
    const statuses = await Promise.all(Array.from({ length: 16 }, attempt));
    expect(statuses.filter((status) => status === 201)).toHaveLength(6);
    expect(statuses.filter((status) => status === 422)).toHaveLength(10);
    const notes = (await notesOf(invoice.id)).items as Json[];
    expect(notes.reduce((sum, note) => sum + note.total_amount_atom, 0)).toBe(3600);
    expect(await invoiceOf(invoice.id)).toMatchObject({ due_amount_atom: 565, pre_payment_credit_notes_amount_atom: 3600 });
    const sequences = notes.map((note) => Number(note.number.split("-").at(-1))).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 6 }, (_, index) => sequences[0]! + index));
  });
});
