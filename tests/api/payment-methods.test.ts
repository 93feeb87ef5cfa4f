import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/* A customer's payment methods (docs/payments.md, "Payment methods"): attach, list, detach, refusals. */

let merchant: Merchant;
let sandbox: Client;
let other: Client;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  other = api((await newMerchant()).sandboxSecret.token);
});

async function customer(client: Client = sandbox): Promise<Json> {
  const response = await client.post("/customers", { email: "cards@example.com", name: "Card Holder" });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function listed(cus: Json, client: Client = sandbox): Promise<Json[]> {
  const response = await client.get(`/customers/${cus.id}/payment-methods`);
  expect(response.status, response.text).toBe(200);
  expect(response.body.total).toBe(response.body.items.length);
  expect(response.body.has_more).toBe(false);
  return response.body.items;
}

async function eventsOf(client: Client, type: string): Promise<Json[]> {
  const response = await client.get(`/events?event_type=${type}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return response.body.items;
}

describe("payment methods", () => {
  it("attaches a sandbox method as a pm_ object with its card, lists it, and emits payment_method.attached once", async () => {
    const cus = await customer();
    expect(await listed(cus)).toEqual([]);
    const attached = await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" });
    expect(attached.status, attached.text).toBe(201);
    expect(attached.body).toEqual({
      object: "payment_method",
      id: expect.stringMatching(/^pm_prod_[0-9a-z]{29}$/),
      customer: cus.id,
      processor: "sandbox",
      processor_payment_method: "pm_sandbox_succeeds",
      card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 },
      created: expect.any(String),
      detached_at: null,
      metadata: {},
      livemode: false,
    });
    const declined = await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_declined" });
    expect(declined.status, declined.text).toBe(201);
    expect(declined.body.card.last4).toBe("0002");
    // Newest first.
    expect((await listed(cus)).map((method) => method.id)).toEqual([declined.body.id, attached.body.id]);

    // Attaching it again answers the same object and emits nothing.
    const again = await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" });
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).toBe(attached.body.id);
    expect(await listed(cus)).toHaveLength(2);

    const events = (await sandbox.get(`/events?aggregate_id=${attached.body.id}`)).body.items;
    expect(events.map((event: Json) => event.type)).toEqual(["payment_method.attached"]);
    expect(events[0].data).toEqual(attached.body);
  });

  it("detaches: no longer listed, payment_method.detached with the state before, and a second detach is a 404", async () => {
    const cus = await customer();
    const kept = (await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_requires_action" })).body;
    const leaving = (await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_refund_fails" })).body;
    const detached = await sandbox.delete(`/customers/${cus.id}/payment-methods/${leaving.id}`);
    expect(detached.status, detached.text).toBe(200);
    expect(detached.body).toEqual({ ...leaving, detached_at: expect.any(String) });
    expect((await listed(cus)).map((method) => method.id)).toEqual([kept.id]);

    const events = (await sandbox.get(`/events?aggregate_id=${leaving.id}`)).body.items;
    expect(events.map((event: Json) => event.type)).toEqual(["payment_method.detached", "payment_method.attached"]);
    expect(events[0].data).toEqual(detached.body);
    expect(events[0].previous_data).toEqual(leaving);

    expectProblem(await sandbox.delete(`/customers/${cus.id}/payment-methods/${leaving.id}`), 404);
    // Once detached it may be attached again: a new object.
    const reattached = await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_refund_fails" });
    expect(reattached.status, reattached.text).toBe(201);
    expect(reattached.body.id).not.toBe(leaving.id);
  });

  it("refuses bad input with a problem body and changes nothing", async () => {
    const cus = await customer();
    const before = (await eventsOf(sandbox, "payment_method.attached")).length;
    const path = `/customers/${String(cus.id)}/payment-methods` as const;
    expectProblem(await sandbox.post(path, {}), 400, /processor_payment_method/);
    // A missing field is a 400; every other problem a 422 naming the field (lib/api/validation.ts).
    const unknownField = await sandbox.post(path, { processor_payment_method: "pm_sandbox_succeeds", brand: "visa" });
    expectProblem(unknownField, 422);
    expect(unknownField.body.errors).toEqual([{ field: "brand", message: expect.any(String) }]);
    expectProblem(await sandbox.post(path, { processor_payment_method: 42 }), 422, /processor_payment_method/);
    expectProblem(await sandbox.post(path, { processor_payment_method: "" }), 422, /processor_payment_method/);
    const unknown = await sandbox.post(path, { processor_payment_method: "pm_card_visa" });
    expectProblem(unknown, 422, /Unknown payment method 'pm_card_visa'/);
    expect(unknown.body.errors).toEqual([{ field: "processor_payment_method", message: expect.stringContaining("pm_sandbox_succeeds") }]);
    expectProblem(await sandbox.post(`/customers/cus_prod_${"0".repeat(29)}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" }), 404);
    expectProblem(await sandbox.delete(`${path}/pm_prod_${"0".repeat(29)}` as const), 404);
    expect(await listed(cus)).toEqual([]);
    expect(await eventsOf(sandbox, "payment_method.attached")).toHaveLength(before);
  });

  it("on a live account: sandbox methods are refused (422), and without a connected processor a card is a 409", async () => {
    const live = merchant.client;
    const cus = await customer(live);
    const path = `/customers/${String(cus.id)}/payment-methods` as const;
    const sandboxMethod = await live.post(path, { processor_payment_method: "pm_sandbox_succeeds" });
    expectProblem(sandboxMethod, 422, /only on sandbox accounts/);
    expect(sandboxMethod.body.errors[0].field).toBe("processor_payment_method");
    expectProblem(await live.post(path, { processor_payment_method: "pm_card_visa" }), 409, /No payment processor is connected/);
    expect(await listed(cus, live)).toEqual([]);
    expect(await eventsOf(live, "payment_method.attached")).toEqual([]);
  });

  it("another account's customer and payment method are not found (404), and nothing changes", async () => {
    const cus = await customer();
    const method = (await sandbox.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" })).body;
    expectProblem(await other.get(`/customers/${cus.id}/payment-methods`), 404);
    expectProblem(await other.post(`/customers/${cus.id}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" }), 404);
    expectProblem(await other.delete(`/customers/${cus.id}/payment-methods/${method.id}`), 404);
    // A method of another customer of the same account is not this customer's either.
    const stranger = await customer();
    expectProblem(await sandbox.delete(`/customers/${stranger.id}/payment-methods/${method.id}`), 404);
    expect(await listed(cus)).toEqual([method]);
    expect(await eventsOf(other, "payment_method.attached")).toEqual([]);
  });
});
