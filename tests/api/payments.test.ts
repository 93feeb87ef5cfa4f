import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json, type ApiPath } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";

/** The payment intent operations posted to `/payment-intents/{id}/{action}`. */
type IntentAction = "confirm" | "capture" | "cancel";
import { expectProblem } from "../helpers/problem";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LIVE_REFUSAL = "sandbox payment methods work only on sandbox accounts; a live account is charged through a connected processor (PUT /payment-processor)";

let merchant: Merchant;
let sandbox: Client;
let account: string;
let endpointId: string;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  const endpoint = await sandbox.post(`/${account}/webhook-endpoints`, {
    url: "https://example.com/h",
    events: ["payment_intent.succeeded"],
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  endpointId = endpoint.body.id;
});

/** The aggregate's events, oldest first. */
async function eventsOf(aggregateId: string, client: Client = sandbox, accountId: string = account): Promise<Json[]> {
  const response = await client.get(`/${accountId}/events?aggregate_id=${aggregateId}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}
const typesOf = async (aggregateId: string) => (await eventsOf(aggregateId)).map((e: Json) => e.type);

async function createIntent(body: Json, headers: Record<string, string> = {}): Promise<Json> {
  const response = await sandbox.post(`/${account}/payment-intents`, { amount_atom: 2000, currency: "usd", ...body }, { headers });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function confirm(id: string, body: Json = {}, headers: Record<string, string> = {}): Promise<Json> {
  const response = await sandbox.post(`/${account}/payment-intents/${id}/confirm`, body, { headers });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function paymentsOf(intentId: string): Promise<Json[]> {
  const response = await sandbox.get(`/${account}/payments?payment_intent=${intentId}`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}

describe("sandbox payment methods", () => {
  it("pm_sandbox_succeeds: created → processing → succeeded, one payment, events in order, one webhook delivery", async () => {
    const { body: customer } = await sandbox.post(`/${account}/customers`, { email: "payer@example.com" });
    const created = await createIntent(
      { customer: customer.id, payment_method: "pm_sandbox_succeeds", metadata: { order: "42" } },
      { "X-Correlation-Id": "pi-create-1" },
    );
    expect(created).toEqual({
      id: expect.stringMatching(/^pi_[a-z]+_[0-9a-z]{29}$/),
      object: "payment_intent",
      amount_atom: 2000,
      amount_capturable_atom: 0,
      amount_received_atom: 0,
      currency: "usd",
      customer: customer.id,
      invoice: null,
      status: "requires_confirmation",
      capture_method: "automatic",
      payment_method: "pm_sandbox_succeeds",
      last_payment_error: null,
      canceled_at: null,
      metadata: { order: "42" },
      livemode: false,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });

    const succeeded = await confirm(created.id, {}, { "X-Correlation-Id": "pi-confirm-1" });
    expect(succeeded).toMatchObject({ status: "succeeded", amount_received_atom: 2000, amount_capturable_atom: 0 });
    expect((await sandbox.get(`/${account}/payment-intents/${created.id}`)).body).toEqual(succeeded);
    expect((await sandbox.get(`/payment-intents/${created.id}`)).body).toEqual(succeeded);

    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.succeeded",
    ]);
    const [createdEvent, processing, success] = events;
    expect(createdEvent).toMatchObject({ data: created, previous_data: null, correlation_id: "pi-create-1" });
    for (const event of [processing, success]) {
      expect(event).toMatchObject({
        aggregate_type: "payment_intent",
        correlation_id: "pi-confirm-1",
        actor_type: "api_key",
        actor_id: merchant.sandboxSecret.id,
      });
    }
    expect(processing.previous_data).toEqual(created);
    expect(processing.data).toMatchObject({ status: "processing", amount_received_atom: 0 });
    expect(success.previous_data).toEqual(processing.data);
    expect(success.data).toEqual(succeeded);

    const [payment] = await paymentsOf(created.id);
    expect(payment).toEqual({
      id: expect.stringMatching(/^py_[a-z]+_[0-9a-z]{29}$/),
      object: "payment",
      payment_intent: created.id,
      amount_atom: 2000,
      amount_refunded_atom: 0,
      currency: "usd",
      status: "succeeded",
      payment_method: "pm_sandbox_succeeds",
      failure_message: null,
      livemode: false,
      created: expect.stringMatching(ISO),
    });
    expect((await sandbox.get(`/payments/${payment.id}`)).body).toEqual(payment);
    const paymentEvents = await eventsOf(payment.id);
    expect(paymentEvents.map((e) => e.type)).toEqual(["payment.succeeded"]);
    expect(paymentEvents[0]).toMatchObject({ data: payment, previous_data: null, correlation_id: "pi-confirm-1" });

    // The endpoint subscribes to payment_intent.succeeded only.
    const deliveries = await sandbox.get(`/${account}/events/${success.id}/deliveries`);
    expect(deliveries.body).toHaveLength(1);
    expect(deliveries.body[0]).toMatchObject({ event_id: success.id, webhook_endpoint_id: endpointId });
    expect((await sandbox.get(`/${account}/events/${processing.id}/deliveries`)).body).toHaveLength(0);
  });

  it("pm_sandbox_declined: a failed payment, back to requires_payment_method; another method then succeeds", async () => {
    const intent = await createIntent({ payment_method: "pm_sandbox_declined" });
    const failed = await confirm(intent.id);
    expect(failed).toMatchObject({
      status: "requires_payment_method",
      payment_method: null,
      last_payment_error: expect.stringMatching(/declined/),
      amount_received_atom: 0,
    });
    expect(await typesOf(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.payment_failed",
    ]);
    const [payment] = await paymentsOf(intent.id);
    expect(payment).toMatchObject({ status: "failed", amount_atom: 2000, payment_method: "pm_sandbox_declined", failure_message: failed.last_payment_error });
    expect(await typesOf(payment.id)).toEqual(["payment.failed"]);

    // The declined method was detached: confirming needs a new one.
    const again = await sandbox.post(`/payment-intents/${intent.id}/confirm`, {});
    expectProblem(again, 400, /payment_method/);
    expect(again.body.errors).toEqual([{ field: "payment_method", message: "Required." }]);

    const succeeded = await confirm(intent.id, { payment_method: "pm_sandbox_succeeds" });
    expect(succeeded).toMatchObject({ status: "succeeded", amount_received_atom: 2000, last_payment_error: null });
    expect((await paymentsOf(intent.id)).map((p) => p.status)).toEqual(["failed", "succeeded"]);
    expect((await typesOf(intent.id)).slice(3)).toEqual(["payment_intent.processing", "payment_intent.succeeded"]);
  });

  it("pm_sandbox_requires_action: requires_action, then confirming again (the action done) succeeds", async () => {
    // confirm: true on creation confirms in the same request.
    const intent = await createIntent({ payment_method: "pm_sandbox_requires_action", confirm: true });
    expect(intent).toMatchObject({ status: "requires_action", payment_method: "pm_sandbox_requires_action" });
    expect(await typesOf(intent.id)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);
    expect(await paymentsOf(intent.id)).toEqual([]);

    const succeeded = await confirm(intent.id);
    expect(succeeded).toMatchObject({ status: "succeeded", amount_received_atom: 2000 });
    const events = await eventsOf(intent.id);
    expect(events.map((e) => e.type)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.processing",
      "payment_intent.succeeded",
    ]);
    expect(events[2]!.previous_data).toMatchObject({ status: "requires_action" });
    const payments = await paymentsOf(intent.id);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ status: "succeeded", amount_atom: 2000, payment_method: "pm_sandbox_requires_action" });
  });

  it("pm_sandbox_partially_funded: half received (partially_funded), another method collects the rest", async () => {
    const intent = await createIntent({ amount_atom: 1001, payment_method: "pm_sandbox_partially_funded" });
    const partial = await confirm(intent.id);
    expect(partial).toMatchObject({ status: "partially_funded", amount_received_atom: 500 });
    const events = await eventsOf(intent.id);
    expect(events.map((e) => e.type)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.partially_funded",
    ]);
    expect(events[2]!.data).toEqual(partial);
    expect(events[2]!.previous_data).toMatchObject({ status: "processing", amount_received_atom: 0 });

    const succeeded = await confirm(intent.id, { payment_method: "pm_sandbox_succeeds" });
    expect(succeeded).toMatchObject({ status: "succeeded", amount_received_atom: 1001 });
    expect((await typesOf(intent.id)).slice(3)).toEqual(["payment_intent.processing", "payment_intent.succeeded"]);
    const payments = await paymentsOf(intent.id);
    expect(payments.map((p) => [p.amount_atom, p.payment_method, p.status])).toEqual([
      [500, "pm_sandbox_partially_funded", "succeeded"],
      [501, "pm_sandbox_succeeds", "succeeded"],
    ]);
  });

  it("pm_sandbox_refund_fails: the payment succeeds, its refund fails (refund.failed), the payment is unchanged", async () => {
    const intent = await createIntent({ payment_method: "pm_sandbox_refund_fails", confirm: true });
    expect(intent.status).toBe("succeeded");
    const [payment] = await paymentsOf(intent.id);
    const refund = await sandbox.post(`/${account}/refunds`, { payment: payment.id }, { headers: { "X-Correlation-Id": "re-fail-1" } });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.body).toMatchObject({
      object: "refund",
      payment: payment.id,
      amount_atom: 2000,
      status: "failed",
      failure_reason: expect.stringMatching(/refused/),
    });
    const events = await eventsOf(refund.body.id);
    expect(events.map((e) => e.type)).toEqual(["refund.created", "refund.failed"]);
    expect(events[0]).toMatchObject({ data: { status: "pending", failure_reason: null }, previous_data: null, correlation_id: "re-fail-1" });
    expect(events[1]).toMatchObject({ data: refund.body, previous_data: events[0]!.data, correlation_id: "re-fail-1" });
    expect((await sandbox.get(`/payments/${payment.id}`)).body).toEqual(payment);
    expect(await typesOf(payment.id)).toEqual(["payment.succeeded"]);
  });

  it("manual capture: requires_capture with amount_capturable, then a partial capture succeeds", async () => {
    const intent = await createIntent({ capture_method: "manual", payment_method: "pm_sandbox_succeeds" });
    const authorized = await confirm(intent.id);
    expect(authorized).toMatchObject({ status: "requires_capture", amount_capturable_atom: 2000, amount_received_atom: 0 });
    const events = await eventsOf(intent.id);
    expect(events.map((e) => e.type)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.amount_capturable_updated",
    ]);
    expect(events[2]!.previous_data).toMatchObject({ status: "processing", amount_capturable_atom: 0 });
    expect(await paymentsOf(intent.id)).toEqual([]);

    const tooMuch = await sandbox.post(`/payment-intents/${intent.id}/capture`, { amount_to_capture: 2001 });
    expectProblem(tooMuch, 422, /amount_capturable_atom/);
    expect(tooMuch.body.errors[0].field).toBe("amount_to_capture");

    const captured = await sandbox.post(`/${account}/payment-intents/${intent.id}/capture`, { amount_to_capture: 1500 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: "succeeded", amount_received_atom: 1500, amount_capturable_atom: 0 });
    expect((await typesOf(intent.id)).slice(3)).toEqual(["payment_intent.succeeded"]);
    const [payment] = await paymentsOf(intent.id);
    expect(payment).toMatchObject({ amount_atom: 1500, status: "succeeded" });

    expectProblem(await sandbox.post(`/payment-intents/${intent.id}/capture`, {}), 409, /can be captured; this one is succeeded/);
  });

  it("manual capture defaults to the whole capturable amount; partially_funded cannot be captured manually", async () => {
    const intent = await createIntent({ capture_method: "manual", payment_method: "pm_sandbox_succeeds", confirm: true });
    const captured = await sandbox.post(`/payment-intents/${intent.id}/capture`);
    expect(captured.body).toMatchObject({ status: "succeeded", amount_received_atom: 2000 });

    const refused = await sandbox.post(`/payment-intents`, {
      amount_atom: 100,
      currency: "usd",
      capture_method: "manual",
      payment_method: "pm_sandbox_partially_funded",
    });
    expectProblem(refused, 422, /manual/);
  });
});

describe("cancel and invalid transitions", () => {
  it("cancels from requires_payment_method and from requires_capture: payment_intent.canceled", async () => {
    const open = await createIntent({});
    expect(open.status).toBe("requires_payment_method");
    const canceled = await sandbox.post(`/${account}/payment-intents/${open.id}/cancel`);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", canceled_at: expect.stringMatching(ISO) });
    const events = await eventsOf(open.id);
    expect(events.map((e) => e.type)).toEqual(["payment_intent.created", "payment_intent.canceled"]);
    expect(events[1]).toMatchObject({ data: canceled.body, previous_data: open });

    const authorized = await createIntent({ capture_method: "manual", payment_method: "pm_sandbox_succeeds", confirm: true });
    const released = await sandbox.post(`/payment-intents/${authorized.id}/cancel`, {});
    expect(released.body).toMatchObject({ status: "canceled", amount_capturable_atom: 0, amount_received_atom: 0 });
  });

  it.each([
    ["confirm a canceled intent", "canceled", "confirm", /status is canceled cannot be confirmed/],
    ["cancel a canceled intent", "canceled", "cancel", /status is canceled cannot be canceled/],
    ["capture a canceled intent", "canceled", "capture", /requires_capture/],
    ["confirm a succeeded intent", "succeeded", "confirm", /status is succeeded cannot be confirmed/],
    ["cancel a succeeded intent", "succeeded", "cancel", /status is succeeded cannot be canceled/],
    ["capture a succeeded intent", "succeeded", "capture", /this one is succeeded/],
    ["capture an unconfirmed intent", "requires_confirmation", "capture", /this one is requires_confirmation/],
    ["confirm an intent awaiting capture", "requires_capture", "confirm", /status is requires_capture cannot be confirmed/],
  ])("answers 409 to %s, and nothing changes", async (_, state, action, detail) => {
    const setup: Record<string, Json> = {
      canceled: { payment_method: "pm_sandbox_succeeds" },
      succeeded: { payment_method: "pm_sandbox_succeeds", confirm: true },
      requires_confirmation: { payment_method: "pm_sandbox_succeeds" },
      requires_capture: { payment_method: "pm_sandbox_succeeds", capture_method: "manual", confirm: true },
    };
    const intent = await createIntent(setup[state]);
    if (state === "canceled") await sandbox.post(`/payment-intents/${intent.id}/cancel`);
    const before = (await sandbox.get(`/payment-intents/${intent.id}`)).body;
    expect(before.status).toBe(state);
    const typesBefore = await typesOf(intent.id);

    expectProblem(await sandbox.post(`/payment-intents/${intent.id}/${action as IntentAction}`, {}), 409, detail);
    expect((await sandbox.get(`/payment-intents/${intent.id}`)).body).toEqual(before);
    expect(await typesOf(intent.id)).toEqual(typesBefore);
  });
});

describe("live accounts", () => {
  it("refuse sandbox payment methods on create and confirm: 422 on payment_method, nothing charged", async () => {
    const refused = await merchant.client.post(`/${merchant.accountId}/payment-intents`, {
      amount_atom: 100,
      currency: "usd",
      payment_method: "pm_sandbox_succeeds",
      confirm: true,
    });
    expectProblem(refused, 422, /charged through a connected processor/);
    expect(refused.body.errors).toEqual([{ field: "payment_method", message: `${LIVE_REFUSAL}.` }]);

    const open = await merchant.client.post("/payment-intents", { amount_atom: 100, currency: "usd" });
    expect(open.status, open.text).toBe(201);
    expect(open.body).toMatchObject({ livemode: true, status: "requires_payment_method" });
    const confirmed = await merchant.client.post(`/payment-intents/${open.body.id}/confirm`, { payment_method: "pm_sandbox_succeeds" });
    expectProblem(confirmed, 422, /sandbox payment methods work only on sandbox accounts/);
    expect((await merchant.client.get(`/payment-intents/${open.body.id}`)).body).toEqual(open.body);
    expect((await merchant.client.get(`/payments?payment_intent=${open.body.id}`)).body.total).toBe(0);
  });
});

describe("validation", () => {
  const create = (body: Json) => sandbox.post(`/${account}/payment-intents`, body);

  it.each([
    ["amount_atom", { currency: "usd" }],
    ["currency", { amount_atom: 100 }],
    ["payment_method", { amount_atom: 100, currency: "usd", confirm: true }],
  ])("answers 400 naming the missing %s", async (field, body) => {
    const response = await create(body);
    expectProblem(response, 400, new RegExp(`Missing required field: ${field}`));
    expect(response.body.errors).toEqual([{ field, message: "Required." }]);
  });

  it.each([
    ["a zero amount", { amount_atom: 0 }, "amount_atom"],
    ["a float amount", { amount_atom: 12.5 }, "amount_atom"],
    ["a string amount", { amount_atom: "100" }, "amount_atom"],
    ["an amount beyond 2^53 - 1", { amount_atom: 2 ** 53 }, "amount_atom"],
    ["a 2-letter currency", { currency: "us" }, "currency"],
    ["an unknown capture_method", { capture_method: "later" }, "capture_method"],
    ["an unknown payment method", { payment_method: "pm_card_visa" }, "payment_method"],
    ["an unknown customer", { customer: "cus_prod_00000000000000000000000000000" }, "customer"],
    ["a non-boolean confirm", { confirm: "yes" }, "confirm"],
    ["a non-string metadata value", { metadata: { a: 1 } }, "metadata.a"],
    ["an unknown field", { invoice: "in_x" }, "invoice"],
  ])("answers 422 on create with %s", async (_, overrides, field) => {
    const response = await create({ amount_atom: 100, currency: "usd", ...overrides });
    expectProblem(response, 422);
    expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
  });

  it.each([
    ["confirm", { payment_method: "pm_nope" }, "payment_method"],
    ["confirm", { payment_method: 7 }, "payment_method"],
    ["capture", { amount_to_capture: 0 }, "amount_to_capture"],
    ["capture", { amount_to_capture: 1.5 }, "amount_to_capture"],
    ["cancel", { reason: "x" }, "reason"],
  ])("answers 422 on %s with %j", async (action, body, field) => {
    const intent = await createIntent({ capture_method: "manual" });
    const response = await sandbox.post(`/payment-intents/${intent.id}/${action as IntentAction}`, body);
    expectProblem(response, 422);
    expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
  });

  it("answers 400 on bad list filters", async () => {
    for (const query of ["status=done", "customer=", "limit=0", "payment_intent=x"]) {
      expectProblem(await sandbox.get(`/payment-intents?${query}`), 400);
    }
    expectProblem(await sandbox.get("/payments?status=x"), 400);
  });
});

describe("lists and isolation", () => {
  it("lists intents and payments newest first, with filters", async () => {
    const fresh = await newMerchant();
    const client = api(fresh.sandboxSecret.token);
    const { body: customer } = await client.post("/customers", { email: "list@example.com" });
    const a = (await client.post("/payment-intents", { amount_atom: 100, currency: "eur", customer: customer.id })).body;
    const b = (await client.post("/payment-intents", { amount_atom: 200, currency: "eur", payment_method: "pm_sandbox_succeeds", confirm: true })).body;
    const c = (await client.post("/payment-intents", { amount_atom: 300, currency: "EUR", payment_method: "pm_sandbox_declined", confirm: true })).body;
    expect(c.currency).toBe("eur");
    const ids = async (path: ApiPath<"get">) => (await client.get(path)).body.items.map((x: Json) => x.id);
    expect(await ids(`/${fresh.sandboxAccountId}/payment-intents`)).toEqual([c.id, b.id, a.id]);
    expect(await ids(`/payment-intents?customer=${customer.id}`)).toEqual([a.id]);
    expect(await ids("/payment-intents?status=succeeded")).toEqual([b.id]);
    expect((await client.get("/payment-intents?limit=2")).body).toMatchObject({ total: 3, has_more: true });
    const payments = (await client.get(`/${fresh.sandboxAccountId}/payments`)).body;
    expect(payments.total).toBe(2);
    expect(payments.items.map((p: Json) => [p.payment_intent, p.status])).toEqual([
      [c.id, "failed"],
      [b.id, "succeeded"],
    ]);
  });

  it("hides other accounts' intents and payments behind 404 (including the same organization's live account)", async () => {
    const other = await newMerchant();
    const theirClient = api(other.sandboxSecret.token);
    const theirs = (await theirClient.post("/payment-intents", { amount_atom: 100, currency: "usd", payment_method: "pm_sandbox_succeeds", confirm: true })).body;
    const theirPayment = (await theirClient.get(`/payments?payment_intent=${theirs.id}`)).body.items[0];

    expectProblem(await sandbox.get(`/payment-intents/${theirs.id}`), 404, /No such payment intent/);
    expectProblem(await sandbox.get(`/${account}/payment-intents/${theirs.id}`), 404);
    for (const action of ["confirm", "capture", "cancel"] as const) {
      expectProblem(await sandbox.post(`/payment-intents/${theirs.id}/${action}`, {}), 404);
    }
    expectProblem(await sandbox.get(`/payments/${theirPayment.id}`), 404, /No such payment/);
    expect((await sandbox.get(`/payments?payment_intent=${theirs.id}`)).body.total).toBe(0);
    expectProblem(await other.client.get(`/payment-intents/${theirs.id}`), 404);
    expect((await theirClient.get(`/payment-intents/${theirs.id}`)).body.status).toBe("succeeded");
  });
});
