import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json, Query } from "../helpers/api";

/** The invoice operations posted to `/invoices/{id}/{action}`. */
type InvoiceAction = "finalize" | "pay" | "void" | "mark-uncollectible" | "lines";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type Receiver, refusedUrl } from "../helpers/receiver";
import { receiverEndpoint } from "../helpers/webhooks";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const INVOICE_EVENTS = [
  "invoice.created",
  "invoice.finalized",
  "invoice.paid",
  "invoice.payment_succeeded",
  "invoice.voided",
  "invoice.marked_uncollectible",
];

let merchant: Merchant;
let endpointId: string;
let customerId: string;
let priceId: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  merchant = await newMerchant();
  const endpoint = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, {
    url: await refusedUrl(),
    events: INVOICE_EVENTS,
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  endpointId = endpoint.body.id;
  customerId = (await merchant.client.post("/customers", { email: "billed@example.com" })).body.id;
  const product = (await merchant.client.post("/products", { name: "Seats" })).body.id;
  priceId = (
    await merchant.client.post("/prices", { product, currency: "usd", unit_amount_atom: 1250, type: "one_time" })
  ).body.id;
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function eventsOf(m: Merchant, aggregateId: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

const typesOf = async (m: Merchant, id: string) => (await eventsOf(m, id)).map((event) => event.type);

/** An event of the invoice: actor, correlation id, the spec's invoice fields, one delivery to the endpoint. */
async function expectEvent(event: Json, type: string, correlationId: string): Promise<void> {
  expect(event).toMatchObject({
    type,
    aggregate_type: "invoice",
    correlation_id: correlationId,
    actor_type: "api_key",
    actor_id: merchant.secret.id,
  });
  for (const field of ["id", "status", "currency", "total_amount_atom", "due_amount_atom", "paid_amount_atom"]) {
    expect(event.data).toHaveProperty(field);
  }
  const deliveries = await merchant.client.get(`/${merchant.accountId}/events/${event.id}/deliveries`);
  expect(deliveries.body).toHaveLength(1);
  expect(deliveries.body[0]).toMatchObject({ event_id: event.id, webhook_endpoint_id: endpointId });
}

const create = (body: Json, m: Merchant = merchant) => m.client.post(`/${m.accountId}/invoices`, body);

async function draft(lines: Json[] = [{ unit_amount_atom: 1000, description: "Setup" }], m: Merchant = merchant, customer = customerId) {
  const response = await create({ customer, currency: "usd", lines }, m);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const act = (id: string, action: InvoiceAction, body?: Json, m: Merchant = merchant, correlationId?: string) =>
  m.client.post(`/${m.accountId}/invoices/${id}/${action}`, body, {
    headers: correlationId ? { "X-Correlation-Id": correlationId } : {},
  });

async function openInvoice(lines?: Json[], m: Merchant = merchant, customer = customerId) {
  const invoice = await draft(lines, m, customer);
  const response = await act(invoice.id, "finalize", undefined, m);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("invoices", () => {
  it("creates a draft with a price line and a custom line: stored, invoice.created with the full state, one delivery", async () => {
    const response = await merchant.client.post(
      `/${merchant.accountId}/invoices`,
      {
        customer: customerId,
        currency: "USD",
        description: "November",
        due_date: "2026-12-31T00:00:00.000Z",
        metadata: { order: "42" },
        lines: [{ price: priceId, quantity: 3 }, { unit_amount_atom: 499, description: "Setup fee" }],
      },
      { headers: { "X-Correlation-Id": "invoice-create-1" } },
    );
    expect(response.status, response.text).toBe(201);
    const invoice = response.body;
    expect(invoice).toEqual({
      id: expect.stringMatching(/^in_prod_[0-9a-z]{29}$/),
      object: "invoice",
      customer: customerId,
      subscription: null,
      status: "draft",
      number: null,
      currency: "usd",
      customer_name: null,
      customer_email: null,
      pdf_sha256: null,
      paid_pdf_sha256: null,
      invoice_pdf: null,
      hosted_invoice_url: null,
      subtotal_atom: 3 * 1250 + 499,
      discount_atom: 0,
      tax_atom: 0,
      total_taxes: [],
      reverse_charge: false,
      total_credits_applied_atom: 0,
      credits_applied: [],
      total_amount_atom: 4249,
      due_amount_atom: 4249,
      paid_amount_atom: 0,
      pre_payment_credit_notes_amount_atom: 0,
      post_payment_credit_notes_amount_atom: 0,
      starting_balance_atom: null,
      ending_balance_atom: null,
      discount: null,
      payment_intent: null,
      description: "November",
      due_date: "2026-12-31T00:00:00.000Z",
      collection_method: "charge_automatically",
      days_until_due: null,
      lines: [
        { id: expect.stringMatching(/^il_prod_/), price: priceId, description: null, quantity: 3, unit_amount_atom: 1250, amount_atom: 3750, tax_rates: [], discount_atom: 0, tax_amounts: [] },
        { id: expect.stringMatching(/^il_prod_/), price: null, description: "Setup fee", quantity: 1, unit_amount_atom: 499, amount_atom: 499, tax_rates: [], discount_atom: 0, tax_amounts: [] },
      ],
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
      overdue_at: null,
      attempt_count: 0,
      next_payment_attempt: null,
      metadata: { order: "42" },
      livemode: true,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await merchant.client.get(`/${merchant.accountId}/invoices/${invoice.id}`)).body).toEqual(invoice);
    expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);

    const [event] = await eventsOf(merchant, invoice.id);
    await expectEvent(event, "invoice.created", "invoice-create-1");
    expect(event.data).toEqual(invoice);
    expect(event.previous_data).toBeNull();
  });

  it("adds and removes draft lines: totals follow, no events until finalization", async () => {
    const invoice = await draft([]);
    expect(invoice).toMatchObject({ lines: [], subtotal_atom: 0, total_amount_atom: 0 });
    const added = await merchant.client.post(`/invoices/${invoice.id}/lines`, { price: priceId, quantity: 2 });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ subtotal_atom: 2500, total_amount_atom: 2500, due_amount_atom: 2500 });
    const second = await merchant.client.post(`/${merchant.accountId}/invoices/${invoice.id}/lines`, {
      unit_amount_atom: 7,
      quantity: 3,
      description: "Stickers",
    });
    expect(second.body.subtotal_atom).toBe(2521);
    expect(second.body.lines.map((l: Json) => l.amount_atom)).toEqual([2500, 21]);

    const removed = await merchant.client.delete(`/${merchant.accountId}/invoices/${invoice.id}/lines/${added.body.lines[0].id}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ subtotal_atom: 21, total_amount_atom: 21, lines: [{ description: "Stickers" }] });
    expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(removed.body);
    expectProblem(await merchant.client.delete(`/invoices/${invoice.id}/lines/${added.body.lines[0].id}`), 404, /No such invoice line/);
    expect(await typesOf(merchant, invoice.id)).toEqual(["invoice.created"]);

    // Once finalized, lines are fixed.
    await act(invoice.id, "finalize");
    expectProblem(await merchant.client.post(`/invoices/${invoice.id}/lines`, { price: priceId }), 409, /is open; only a draft/);
    expectProblem(await merchant.client.delete(`/invoices/${invoice.id}/lines/${removed.body.lines[0].id}`), 409, /is open/);
  });

  it("finalizes: open, due = total, finalized_at; invoice.finalized with the draft as previous_data", async () => {
    const invoice = await draft([{ price: priceId, quantity: 2 }]);
    const response = await act(invoice.id, "finalize", undefined, merchant, "invoice-finalize-1");
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      ...invoice,
      status: "open",
      number: expect.stringMatching(/^MERCHA-\d{4}$/), // the default prefix: the first 6 characters of "Merchant…" (docs/rules/invoices.md)
      customer_email: "billed@example.com",
      pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      invoice_pdf: expect.stringMatching(/\/invoices\/in_prod_\w+\/pdf$/),
      hosted_invoice_url: expect.stringMatching(/\/invoice\/[\w-]{43}$/),
      total_amount_atom: 2500,
      due_amount_atom: 2500,
      starting_balance_atom: 0,
      ending_balance_atom: 0,
      finalized_at: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(response.body);
    const [event] = await eventsOf(merchant, invoice.id);
    await expectEvent(event, "invoice.finalized", "invoice-finalize-1");
    expect(event.data).toEqual(response.body);
    expect(event.previous_data).toEqual(invoice);
  });

  it("refuses to finalize an invoice without lines (409), nothing changes", async () => {
    const invoice = await draft([]);
    expectProblem(await act(invoice.id, "finalize"), 409, /has no lines/);
    expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
    expect(await typesOf(merchant, invoice.id)).toEqual(["invoice.created"]);
  });

  it("pays out of band: paid, due 0, paid = total; invoice.paid then invoice.payment_succeeded, one correlation id", async () => {
    const open = await openInvoice([{ price: priceId }]);
    for (const body of [undefined, {}, { paid_out_of_band: false }]) {
      const refused = await act(open.id, "pay", body);
      expectProblem(refused, 422, /paid_out_of_band: true/);
      expect(refused.body.errors).toEqual([{ field: "paid_out_of_band", message: expect.stringContaining("paid_out_of_band: true") }]);
    }
    expectProblem(await act(open.id, "pay", { payment_method: "pm_x", paid_out_of_band: true }), 422);
    expect((await merchant.client.get(`/invoices/${open.id}`)).body).toEqual(open);

    const paid = await act(open.id, "pay", { paid_out_of_band: true }, merchant, "invoice-pay-1");
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toEqual({
      ...open,
      status: "paid",
      due_amount_atom: 0,
      paid_amount_atom: 1250,
      paid_at: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
      // The paid version of the document, rendered when it was paid (docs/invoices-and-tax.md).
      paid_pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(paid.body.paid_pdf_sha256).not.toBe(open.pdf_sha256);
    expect((await merchant.client.get(`/invoices/${open.id}`)).body).toEqual(paid.body);

    const events = await eventsOf(merchant, open.id);
    // Newest first: payment_succeeded was emitted after paid, in the same transaction.
    expect(events.map((e) => e.type)).toEqual(["invoice.payment_succeeded", "invoice.paid", "invoice.finalized", "invoice.created"]);
    await expectEvent(events[1], "invoice.paid", "invoice-pay-1");
    await expectEvent(events[0], "invoice.payment_succeeded", "invoice-pay-1");
    for (const event of events.slice(0, 2)) {
      expect(event.data).toEqual(paid.body);
      expect(event.data).toMatchObject({ due_amount_atom: 0, paid_amount_atom: event.data.total_amount_atom });
      expect(event.previous_data).toEqual(open);
    }
  });

  it("voids an open invoice (invoice.voided) and marks one uncollectible (invoice.marked_uncollectible)", async () => {
    const toVoid = await openInvoice();
    const voided = await act(toVoid.id, "void", undefined, merchant, "invoice-void-1");
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body).toEqual({ ...toVoid, status: "void", voided_at: expect.stringMatching(ISO), updated: expect.stringMatching(ISO) });
    const [voidEvent] = await eventsOf(merchant, toVoid.id);
    await expectEvent(voidEvent, "invoice.voided", "invoice-void-1");
    expect(voidEvent.data).toEqual(voided.body);
    expect(voidEvent.previous_data).toEqual(toVoid);

    const bad = await openInvoice();
    const marked = await act(bad.id, "mark-uncollectible", undefined, merchant, "invoice-uncollectible-1");
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body).toEqual({
      ...bad,
      status: "uncollectible",
      marked_uncollectible_at: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    const [markEvent] = await eventsOf(merchant, bad.id);
    await expectEvent(markEvent, "invoice.marked_uncollectible", "invoice-uncollectible-1");
    expect(markEvent.previous_data).toEqual(bad);

    // An uncollectible invoice may still be paid out of band…
    const paid = await act(bad.id, "pay", { paid_out_of_band: true });
    expect(paid.body).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 1000 });
    expect((await eventsOf(merchant, bad.id))[1].previous_data.status).toBe("uncollectible");
    // …or voided.
    const other = await openInvoice();
    await act(other.id, "mark-uncollectible");
    expect((await act(other.id, "void")).body).toMatchObject({ status: "void", marked_uncollectible_at: expect.stringMatching(ISO) });
  });

  it("answers 409 naming the current status for every invalid transition, and changes nothing", async () => {
    const states: Record<string, Json> = {
      draft: await draft(),
      open: await openInvoice(),
      paid: (await act((await openInvoice()).id, "pay", { paid_out_of_band: true })).body,
      void: (await act((await openInvoice()).id, "void")).body,
      uncollectible: (await act((await openInvoice()).id, "mark-uncollectible")).body,
    };
    const invalid: [string, InvoiceAction, Json?][] = [
      ["draft", "pay", { paid_out_of_band: true }],
      ["draft", "void"],
      ["draft", "mark-uncollectible"],
      ["open", "finalize"],
      ["paid", "finalize"],
      ["paid", "pay", { paid_out_of_band: true }],
      ["paid", "void"],
      ["paid", "mark-uncollectible"],
      ["void", "finalize"],
      ["void", "pay", { paid_out_of_band: true }],
      ["void", "void"],
      ["void", "mark-uncollectible"],
      ["uncollectible", "finalize"],
      ["uncollectible", "mark-uncollectible"],
    ];
    for (const [state, action, body] of invalid) {
      const invoice = states[state];
      const before = await typesOf(merchant, invoice.id);
      const response = await act(invoice.id, action, body);
      expectProblem(response, 409, new RegExp(`Invoice '${invoice.id}' is ${state};`));
      expect(response.body.error_code, `${state} ${action}`).toBeUndefined();
      expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
      expect(await typesOf(merchant, invoice.id)).toEqual(before);
    }
  });

  describe("discounts at finalization", () => {
    async function discounted(coupon: Json, lines: Json[], currency = "usd") {
      const m = await newMerchant();
      const customer = (await m.client.post("/customers", { email: "d@example.com" })).body.id;
      if (coupon) {
        const created = await m.client.post("/coupons", { duration: "forever", ...coupon });
        expect(created.status, created.text).toBe(201);
        expect((await m.client.post(`/customers/${customer}/discount`, { coupon: created.body.id })).status).toBe(200);
      }
      const invoice = await create({ customer, currency, lines }, m);
      expect(invoice.status, invoice.text).toBe(201);
      // A draft shows the undiscounted total; the discount is fixed at finalization.
      expect(invoice.body).toMatchObject({ discount_atom: 0, total_amount_atom: invoice.body.subtotal_atom, discount: null });
      const finalized = await act(invoice.body.id, "finalize", undefined, m);
      expect(finalized.status, finalized.text).toBe(200);
      return { m, customer, invoice: finalized.body };
    }

    it.each([
      // 33.33 % of 3 × 1001 = 3003 → floor(1000.89…) = 1000 off.
      ["33.33 % off", { percent_off: 33.33 }, [{ unit_amount_atom: 1001, quantity: 3, description: "A" }], 3003, 1000],
      ["50 % of 1 atom (rounds down to 0 off)", { percent_off: 50 }, [{ unit_amount_atom: 1, description: "A" }], 1, 0],
      ["100 % off", { percent_off: 100 }, [{ unit_amount_atom: 999, description: "A" }], 999, 999],
      ["an amount off in the invoice's currency", { amount_off_atom: 250, currency: "usd" }, [{ unit_amount_atom: 1000, description: "A" }], 1000, 250],
      ["an amount off bigger than the subtotal (capped)", { amount_off_atom: 5000, currency: "usd" }, [{ unit_amount_atom: 1200, description: "A" }], 1200, 1200],
      ["an amount off in another currency (does not apply)", { amount_off_atom: 250, currency: "eur" }, [{ unit_amount_atom: 1000, description: "A" }], 1000, 0],
      ["no discount", null, [{ unit_amount_atom: Number.MAX_SAFE_INTEGER, description: "Max" }], Number.MAX_SAFE_INTEGER, 0],
    ])("%s", async (_, coupon, lines, subtotal, off) => {
      const { m, customer, invoice } = await discounted(coupon, lines);
      const total = subtotal - off;
      expect(invoice).toMatchObject({ subtotal_atom: subtotal, discount_atom: off, total_amount_atom: total });
      expect(Number.isInteger(invoice.total_amount_atom) && invoice.total_amount_atom >= 0).toBe(true);
      const applied = off > 0 || (coupon !== null && "percent_off" in coupon);
      const discount = applied ? (await m.client.get(`/customers/${customer}/discount`)).body.id : null;
      expect(invoice.discount).toBe(discount);
      if (total === 0) {
        // Nothing to collect: paid at once, in the finalize transaction.
        expect(invoice).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 0, paid_at: expect.stringMatching(ISO) });
        expect(await typesOf(m, invoice.id)).toEqual(["invoice.payment_succeeded", "invoice.paid", "invoice.finalized", "invoice.created"]);
        const [, paidEvent, finalizedEvent] = await eventsOf(m, invoice.id);
        expect(finalizedEvent.data).toMatchObject({ status: "open", total_amount_atom: 0, due_amount_atom: 0 });
        expect(paidEvent.data).toEqual(invoice);
      } else {
        expect(invoice).toMatchObject({ status: "open", due_amount_atom: total, paid_amount_atom: 0 });
        const paid = await act(invoice.id, "pay", { paid_out_of_band: true }, m);
        expect(paid.body).toMatchObject({ due_amount_atom: 0, paid_amount_atom: total });
      }
    });

    it("applies no discount once it was removed", async () => {
      const { m, customer } = await discounted({ percent_off: 10 }, [{ unit_amount_atom: 100, description: "A" }]);
      await m.client.delete(`/customers/${customer}/discount`);
      const invoice = (await create({ customer, currency: "usd", lines: [{ unit_amount_atom: 100, description: "B" }] }, m)).body;
      expect((await act(invoice.id, "finalize", undefined, m)).body).toMatchObject({ discount: null, discount_atom: 0, total_amount_atom: 100 });
    });
  });

  describe("validation", () => {
    it.each([
      ["customer", { currency: "usd" }],
      ["currency", { customer: "cus_x" }],
      ["lines.0.price", { customer: "cus_x", currency: "usd", lines: [{ quantity: 2 }] }],
      ["lines.0.description", { customer: "cus_x", currency: "usd", lines: [{ unit_amount_atom: 5 }] }],
    ])("answers 400 naming the missing %s", async (field, body) => {
      const response = await create(body);
      expectProblem(response, 400, /Missing required field/);
      expect(response.body.errors).toEqual([{ field, message: "Required." }]);
    });

    it.each([
      ["an unknown customer", { customer: "cus_prod_00000000000000000000000000000" }, "customer"],
      ["a 2-letter currency", { currency: "us" }, "currency"],
      ["an invalid due_date", { due_date: "tomorrow" }, "due_date"],
      ["an unknown field", { auto_advance: true }, "auto_advance"],
      ["price and unit_amount_atom", { lines: [{ price: "price_x", unit_amount_atom: 1 }] }, "lines.0.unit_amount_atom"],
      ["quantity 0", { lines: [{ unit_amount_atom: 1, description: "x", quantity: 0 }] }, "lines.0.quantity"],
      ["a fractional quantity", { lines: [{ unit_amount_atom: 1, description: "x", quantity: 1.5 }] }, "lines.0.quantity"],
      ["a float amount", { lines: [{ unit_amount_atom: 1.5, description: "x" }] }, "lines.0.unit_amount_atom"],
      ["a negative amount", { lines: [{ unit_amount_atom: -1, description: "x" }] }, "lines.0.unit_amount_atom"],
      ["an amount overflowing 2^53 - 1", { lines: [{ unit_amount_atom: Number.MAX_SAFE_INTEGER, quantity: 2, description: "x" }] }, "lines.0.quantity"],
      [
        "a subtotal overflowing 2^53 - 1",
        { lines: [{ unit_amount_atom: Number.MAX_SAFE_INTEGER, description: "x" }, { unit_amount_atom: 1, description: "y" }] },
        "lines",
      ],
      ["an unknown price", { lines: [{ price: "price_prod_00000000000000000000000000000" }] }, "lines.0.price"],
      ["an unknown line field", { lines: [{ unit_amount_atom: 1, description: "x", tax: 1 }] }, "lines.0.tax"],
    ])("answers 422 on create with %s, creating nothing", async (_, overrides, field) => {
      const fresh = await newMerchant();
      const customer = (await fresh.client.post("/customers", { email: "v@example.com" })).body.id;
      const response = await create({ customer, currency: "usd", ...overrides }, fresh);
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
      expect((await fresh.client.get("/invoices")).body.total).toBe(0);
    });

    it("refuses a price in another currency, an archived price, another account's price or customer (422)", async () => {
      const product = (await merchant.client.post("/products", { name: "P" })).body.id;
      const eur = (await merchant.client.post("/prices", { product, currency: "eur", unit_amount_atom: 1, type: "one_time" })).body.id;
      const archived = (
        await merchant.client.post("/prices", { product, currency: "usd", unit_amount_atom: 1, type: "one_time", active: false })
      ).body.id;
      const other = await newMerchant();
      const theirProduct = (await other.client.post("/products", { name: "Theirs" })).body.id;
      const theirs = (await other.client.post("/prices", { product: theirProduct, currency: "usd", unit_amount_atom: 1, type: "one_time" })).body.id;
      const theirCustomer = (await other.client.post("/customers", { email: "t@example.com" })).body.id;
      for (const [line, detail] of [
        [{ price: eur }, /has no usd amount: it bills in eur/],
        [{ price: archived }, /is archived/],
        [{ price: theirs }, /No such price/],
      ] as const) {
        const response = await create({ customer: customerId, currency: "usd", lines: [line] });
        expectProblem(response, 422, detail);
        expect(response.body.errors[0].field).toBe("lines.0.price");
      }
      expectProblem(await create({ customer: theirCustomer, currency: "usd" }), 422, /No such customer/);

      const invoice = await draft();
      const addEur = await merchant.client.post(`/invoices/${invoice.id}/lines`, { price: eur });
      expectProblem(addEur, 422, /has no usd amount: it bills in eur/);
      expect(addEur.body.errors).toEqual([{ field: "price", message: expect.any(String) }]);
      expectProblem(await merchant.client.post(`/invoices/${invoice.id}/lines`, {}), 400, /price/);
      expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
    });
  });

  it("lists newest first, paginated, with customer and status filters", async () => {
    const fresh = await newMerchant();
    const [a, b] = await Promise.all(
      ["a@example.com", "b@example.com"].map(async (email) => (await fresh.client.post("/customers", { email })).body.id as string),
    );
    const i0 = await draft(undefined, fresh, a);
    const i1 = await openInvoice(undefined, fresh, a);
    const i2 = await openInvoice(undefined, fresh, b);
    const listed = async (query: Query) => {
      const response = await fresh.client.get(`/${fresh.accountId}/invoices${query}`);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const all = await listed("");
    expect(all.items.map((i: Json) => i.id)).toEqual([i2.id, i1.id, i0.id]);
    expect(all.items[0]).toEqual(i2);
    expect(await listed("?limit=2")).toMatchObject({ total: 3, has_more: true });
    expect((await listed(`?customer=${a}`)).items.map((i: Json) => i.id)).toEqual([i1.id, i0.id]);
    expect((await listed("?status=open")).items.map((i: Json) => i.id)).toEqual([i2.id, i1.id]);
    expect(await listed(`?status=draft&customer=${a}`)).toMatchObject({ total: 1, items: [{ id: i0.id, lines: i0.lines }] });
    for (const query of ["status=closed", "customer=", "currency=usd"]) {
      expectProblem(await fresh.client.get(`/invoices?${query}`), 400);
    }
  });

  it("hides other accounts' invoices behind 404", async () => {
    const other = await newMerchant();
    const theirCustomer = (await other.client.post("/customers", { email: "x@example.com" })).body.id;
    const theirs = await draft(undefined, other, theirCustomer);
    expectProblem(await merchant.client.get(`/invoices/${theirs.id}`), 404, /No such invoice/);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/invoices/${theirs.id}`), 404);
    for (const action of ["finalize", "void", "mark-uncollectible"] as const) expectProblem(await act(theirs.id, action), 404);
    expectProblem(await act(theirs.id, "pay", { paid_out_of_band: true }), 404);
    expectProblem(await act(theirs.id, "lines", { unit_amount_atom: 1, description: "x" }), 404);
    expectProblem(await merchant.client.delete(`/invoices/${theirs.id}/lines/${theirs.lines[0].id}`), 404);
    expect((await merchant.client.get(`/invoices?customer=${theirCustomer}`)).body.total).toBe(0);
    expect((await other.client.get(`/invoices/${theirs.id}`)).body).toEqual(theirs);
    expect(await typesOf(other, theirs.id)).toEqual(["invoice.created"]);
  });

  it("publishable tokens cannot read or change invoices", async () => {
    const { api } = await import("../helpers/api");
    const browser = api(merchant.publishable.token);
    const invoice = await draft();
    expectProblem(await browser.get(`/invoices/${invoice.id}`), 403);
    expectProblem(await browser.post(`/invoices/${invoice.id}/finalize`), 403);
  });

  it("delivers invoice.paid to an endpoint subscribed to it, signed", async () => {
    const fresh = await newMerchant();
    const { receiver } = await receiverEndpoint(fresh, ["invoice.paid"]);
    receivers.push(receiver);
    const customer = (await fresh.client.post("/customers", { email: "hook@example.com" })).body.id;
    const open = await openInvoice(undefined, fresh, customer);
    const paid = (await act(open.id, "pay", { paid_out_of_band: true }, fresh)).body;
    await eventually(
      async () => receiver.requests,
      (requests) => requests.length >= 1,
    );
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.signatureValid).toBe(true);
    expect(request!.body.type).toBe("invoice.paid");
    expect(request!.body.data.object).toEqual(paid);
    expect(request!.body.data.previous_attributes).toMatchObject({ status: "open", due_amount_atom: open.due_amount_atom, paid_amount_atom: 0 });
  });
});
