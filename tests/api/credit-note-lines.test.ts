import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * Credit notes by line are bounded per line over every issued credit note, tax included, and a
 * line's tax is credited cumulatively (issue 42, rule 5; docs/credit-notes-and-balance.md).
 */

let sandbox: Client;
let sevenPercent: Json;

beforeAll(async () => {
  const merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  sevenPercent = (await sandbox.post("/tax-rates", { display_name: "Sales tax", percentage: 7, inclusive: false })).body;
});

async function openInvoice(lines: Json[]): Promise<Json> {
  const owner = (await sandbox.post("/customers", { email: "lines@example.com", name: "Line Customer" })).body;
  const draft = await sandbox.post("/invoices", { customer: owner.id, currency: "usd", lines });
  expect(draft.status, draft.text).toBe(201);
  const open = await sandbox.post(`/invoices/${draft.body.id}/finalize`);
  expect(open.status, open.text).toBe(200);
  return open.body;
}

const invoiceOf = async (id: string) => (await sandbox.get(`/invoices/${id}`)).body;

/** Issues a credit note after checking that its preview answers the same. */
async function issue(body: Json): Promise<Json> {
  const preview = await sandbox.post("/credit-notes/preview", body);
  expect(preview.status, preview.text).toBe(200);
  const created = await sandbox.post("/credit-notes", body);
  expect(created.status, created.text).toBe(201);
  for (const field of ["subtotal_atom", "tax_atom", "total_amount_atom", "lines"]) expect(preview.body[field]).toEqual(created.body[field]);
  return created.body;
}

/** Both the preview and the issue refuse with a 422 naming `field`; nothing changes. */
async function refused(body: Json, field: string, detail?: RegExp): Promise<void> {
  const before = await invoiceOf(body.invoice);
  for (const path of ["/credit-notes/preview", "/credit-notes"] as const) {
    const response = await sandbox.post(path, body);
    expectProblem(response, 422, detail);
    expect(response.body.errors.map((error: Json) => error.field)).toContain(field);
  }
  expect(await invoiceOf(body.invoice)).toEqual(before);
}

describe("credit notes by line", () => {
  it("a line credited whole by one note cannot be credited again by another; the other line's tax stays creditable", async () => {
    const invoice = await openInvoice([
      { unit_amount_atom: 1000, description: "A", tax_rates: [sevenPercent.id] },
      { unit_amount_atom: 1000, description: "B", tax_rates: [sevenPercent.id] },
    ]);
    expect(invoice.total_amount_atom).toBe(2140);
    const [lineA, lineB] = invoice.lines;
    const first = await issue({ invoice: invoice.id, lines: [{ invoice_line: lineA.id, amount_atom: 1000 }], reason: "order_change" });
    expect(first).toMatchObject({ subtotal_atom: 1000, tax_atom: 70, total_amount_atom: 1070 });

    // The invoice still has 1070 left, but none of it is line A's.
    await refused({ invoice: invoice.id, lines: [{ invoice_line: lineA.id, amount_atom: 1000 }], reason: "order_change" }, "lines.0.amount_atom", /not yet credited \(0 of 1000\)/);
    await refused({ invoice: invoice.id, lines: [{ invoice_line: lineA.id, quantity: 1 }], reason: "order_change" }, "lines.0.quantity");

    const second = await issue({ invoice: invoice.id, lines: [{ invoice_line: lineB.id, quantity: 1 }], reason: "order_change" });
    expect(second).toMatchObject({ subtotal_atom: 1000, tax_atom: 70, total_amount_atom: 1070 });
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: "paid", pre_payment_credit_notes_amount_atom: 2140 });
  });

  it("a void credit note gives its line back", async () => {
    const invoice = await openInvoice([
      { unit_amount_atom: 1000, description: "A", tax_rates: [sevenPercent.id] },
      { unit_amount_atom: 500, description: "B" },
    ]);
    const lineA = invoice.lines[0];
    const body = { invoice: invoice.id, lines: [{ invoice_line: lineA.id, amount_atom: 1000 }], reason: "order_change" };
    const note = await issue(body);
    await refused(body, "lines.0.amount_atom");
    expect((await sandbox.post(`/credit-notes/${note.id}/void`)).status).toBe(200);
    expect((await issue(body)).total_amount_atom).toBe(1070);
  });

  it("a line named twice in one request is a 422 naming the second", async () => {
    const invoice = await openInvoice([{ unit_amount_atom: 250, quantity: 4, description: "Seats" }]);
    const seats = invoice.lines[0].id;
    await refused(
      { invoice: invoice.id, lines: [{ invoice_line: seats, quantity: 1 }, { invoice_line: seats, quantity: 1 }], reason: "duplicate" },
      "lines.1.invoice_line",
      /already credited by lines\.0/,
    );
    await refused(
      { invoice: invoice.id, lines: [{ invoice_line: seats, amount_atom: 100 }, { invoice_line: seats, quantity: 3 }], reason: "duplicate" },
      "lines.1.invoice_line",
    );
  });

  it("2 × 250 at 7 % exclusive: one unit, then the other, credits 268 + 267 = 535 exactly", async () => {
    const invoice = await openInvoice([{ unit_amount_atom: 250, quantity: 2, description: "Units", tax_rates: [sevenPercent.id] }]);
    expect(invoice).toMatchObject({ subtotal_atom: 500, tax_atom: 35, total_amount_atom: 535 });
    const line = invoice.lines[0].id;
    const body = { invoice: invoice.id, lines: [{ invoice_line: line, quantity: 1 }], reason: "order_change" };
    const first = await issue(body);
    // 17.5 rounds half to even: 18.
    expect(first).toMatchObject({ subtotal_atom: 250, tax_atom: 18, total_amount_atom: 268 });
    const second = await issue(body);
    expect(second).toMatchObject({ subtotal_atom: 250, tax_atom: 17, total_amount_atom: 267 });
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: "paid", pre_payment_credit_notes_amount_atom: 535 });
    // Nothing is left of the line, though the (now paid) invoice could take a post-payment credit note.
    await refused(body, "lines.0.quantity", /not yet credited \(0 of 2\)/);
  });

  it("units after an amount: the units' amount is bounded by what is left of the line", async () => {
    const invoice = await openInvoice([{ unit_amount_atom: 300, quantity: 3, description: "Seats", tax_rates: [sevenPercent.id] }]);
    const line = invoice.lines[0].id;
    await issue({ invoice: invoice.id, lines: [{ invoice_line: line, amount_atom: 100 }], reason: "order_change" });
    await refused({ invoice: invoice.id, lines: [{ invoice_line: line, quantity: 3 }], reason: "order_change" }, "lines.0.quantity", /left to credit on the line \(800\)/);
    const rest = await issue({ invoice: invoice.id, lines: [{ invoice_line: line, amount_atom: 800 }], reason: "order_change" });
    // Cumulative: 7 + 56 = 63, the line's tax.
    expect(rest).toMatchObject({ subtotal_atom: 800, tax_atom: 56 });
    expect((await invoiceOf(invoice.id)).pre_payment_credit_notes_amount_atom).toBe(963);
  });
});
