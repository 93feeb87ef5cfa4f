import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let merchant: Merchant;
let sandbox: Client;
let account: string;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
});

async function eventsOf(aggregateId: string): Promise<Json[]> {
  const response = await sandbox.get(`/${account}/events?aggregate_id=${aggregateId}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}

/** A succeeded payment of `amount` made with `method`. */
async function paidPayment(amount = 2000, method = "pm_sandbox_succeeds"): Promise<Json> {
  const intent = await sandbox.post(`/payment-intents`, { amount_atom: amount, currency: "usd", payment_method: method, confirm: true });
  expect(intent.status, intent.text).toBe(201);
  return (await sandbox.get(`/payments?payment_intent=${intent.body.id}`)).body.items[0];
}

describe("refunds", () => {
  it("a partial then the remaining refund: refund.created → refund.updated, payment.refunded each time", async () => {
    const payment = await paidPayment();
    const partial = await sandbox.post(
      `/${account}/refunds`,
      { payment: payment.id, amount_atom: 500, reason: "requested_by_customer", metadata: { ticket: "7" } },
      { headers: { "X-Correlation-Id": "refund-1" } },
    );
    expect(partial.status, partial.text).toBe(201);
    expect(partial.body).toEqual({
      id: expect.stringMatching(/^re_[a-z]+_[0-9a-z]{29}$/),
      object: "refund",
      payment: payment.id,
      amount_atom: 500,
      currency: "usd",
      status: "succeeded",
      reason: "requested_by_customer",
      failure_reason: null,
      metadata: { ticket: "7" },
      livemode: false,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await sandbox.get(`/refunds/${partial.body.id}`)).body).toEqual(partial.body);

    const events = await eventsOf(partial.body.id);
    expect(events.map((e) => e.type)).toEqual(["refund.created", "refund.updated"]);
    expect(events[0]).toMatchObject({ data: { status: "pending" }, previous_data: null });
    expect(events[1]).toMatchObject({ data: partial.body, previous_data: events[0]!.data });
    for (const event of events) {
      expect(event).toMatchObject({ correlation_id: "refund-1", actor_type: "api_key", actor_id: merchant.sandboxSecret.id });
    }

    const afterPartial = (await sandbox.get(`/payments/${payment.id}`)).body;
    expect(afterPartial).toMatchObject({ status: "partially_refunded", amount_refunded_atom: 500 });
    const paymentEvents = await eventsOf(payment.id);
    expect(paymentEvents.map((e) => e.type)).toEqual(["payment.succeeded", "payment.refunded"]);
    expect(paymentEvents[1]).toMatchObject({ data: afterPartial, previous_data: payment, correlation_id: "refund-1" });

    const tooMuch = await sandbox.post("/refunds", { payment: payment.id, amount_atom: 1501 });
    expectProblem(tooMuch, 422, /at most the payment's unrefunded amount \(1500\)/);
    expect(tooMuch.body.errors[0].field).toBe("amount_atom");

    // Without amount_atom: everything not refunded yet.
    const rest = await sandbox.post("/refunds", { payment: payment.id });
    expect(rest.body).toMatchObject({ amount_atom: 1500, status: "succeeded", reason: null });
    expect((await sandbox.get(`/payments/${payment.id}`)).body).toMatchObject({ status: "refunded", amount_refunded_atom: 2000 });
    expect((await eventsOf(payment.id)).map((e) => e.type)).toEqual(["payment.succeeded", "payment.refunded", "payment.refunded"]);

    expectProblem(await sandbox.post("/refunds", { payment: payment.id, amount_atom: 1 }), 409, /already fully refunded/);
    const listed = await sandbox.get(`/${account}/refunds?payment=${payment.id}`);
    expect(listed.body.items.map((r: Json) => r.id)).toEqual([rest.body.id, partial.body.id]);
  });

  it("never refunds more than the payment, even concurrently", async () => {
    const payment = await paidPayment(2000);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => sandbox.post("/refunds", { payment: payment.id, amount_atom: 600 })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 422, 422]);
    expect((await sandbox.get(`/payments/${payment.id}`)).body).toMatchObject({
      amount_refunded_atom: 1800,
      status: "partially_refunded",
    });
    const refunds = (await sandbox.get(`/refunds?payment=${payment.id}`)).body;
    expect(refunds.total).toBe(3);
  });

  it("refuses to refund a failed payment (409)", async () => {
    const intent = await sandbox.post("/payment-intents", { amount_atom: 100, currency: "usd", payment_method: "pm_sandbox_declined", confirm: true });
    const failed = (await sandbox.get(`/payments?payment_intent=${intent.body.id}`)).body.items[0];
    expect(failed.status).toBe("failed");
    expectProblem(await sandbox.post("/refunds", { payment: failed.id }), 409, /failed payment/);
  });

  describe("validation", () => {
    it("answers 400 naming the missing payment", async () => {
      const response = await sandbox.post("/refunds", { amount_atom: 1 });
      expectProblem(response, 400, /Missing required field: payment/);
      expect(response.body.errors).toEqual([{ field: "payment", message: "Required." }]);
    });

    it.each([
      ["a zero amount", { amount_atom: 0 }, "amount_atom"],
      ["a float amount", { amount_atom: 1.5 }, "amount_atom"],
      ["an unknown reason", { reason: "because" }, "reason"],
      ["an unknown payment", { payment: "py_prod_00000000000000000000000000000" }, "payment"],
      ["an unknown field", { charge: "ch_1" }, "charge"],
    ])("answers 422 with %s", async (_, overrides, field) => {
      const payment = await paidPayment(100);
      const response = await sandbox.post("/refunds", { payment: payment.id, ...overrides });
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
      expect((await sandbox.get(`/payments/${payment.id}`)).body.amount_refunded_atom).toBe(0);
    });
  });

  it("hides other accounts' refunds and payments: 404 to read, 422 to refund", async () => {
    const other = await newMerchant();
    const theirs = api(other.sandboxSecret.token);
    const intent = await theirs.post("/payment-intents", { amount_atom: 100, currency: "usd", payment_method: "pm_sandbox_succeeds", confirm: true });
    const payment = (await theirs.get(`/payments?payment_intent=${intent.body.id}`)).body.items[0];
    const refund = (await theirs.post("/refunds", { payment: payment.id, amount_atom: 10 })).body;

    expectProblem(await sandbox.get(`/refunds/${refund.id}`), 404, /No such refund/);
    expectProblem(await sandbox.get(`/${account}/refunds/${refund.id}`), 404);
    expect((await sandbox.get(`/refunds?payment=${payment.id}`)).body.total).toBe(0);
    const hijack = await sandbox.post("/refunds", { payment: payment.id });
    expectProblem(hijack, 422, /No such payment/);
    expect((await theirs.get(`/payments/${payment.id}`)).body.amount_refunded_atom).toBe(10);
  });
});
