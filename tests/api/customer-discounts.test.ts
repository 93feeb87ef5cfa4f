import { beforeAll, describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, refusedUrl } from "../helpers/receiver";

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function eventsOf(m: Merchant, aggregateId: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

async function subscribe(m: Merchant, types: string[]): Promise<string> {
  const created = await m.client.post(`/${m.accountId}/webhook-endpoints`, { url: await refusedUrl(), events: types });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function expectOneDelivery(m: Merchant, eventId: string, endpointId: string): Promise<void> {
  const deliveries = await eventually(
    async () => (await m.client.get(`/${m.accountId}/events/${eventId}/deliveries`)).body as Json[],
    (list) => list.length > 0,
  );
  expect(deliveries).toHaveLength(1);
  expect(deliveries[0]).toMatchObject({ event_id: eventId, webhook_endpoint_id: endpointId });
}

async function customer(m: Merchant): Promise<Json> {
  const response = await m.client.post(`/${m.accountId}/customers`, { email: "discounted@example.com" });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function coupon(m: Merchant, body: Json = { percent_off: 25, duration: "forever" }): Promise<Json> {
  const response = await m.client.post(`/${m.accountId}/coupons`, body);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const discountPath = (m: Merchant, customerId: string) => `/${m.accountId}/customers/${customerId}/discount` as const;

describe("customer discounts", () => {
  it("applies a coupon: the discount, one redemption counted, customer.discount.created and its delivery", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["customer.discount.created"]);
    const cus = await customer(fresh);
    const cpn = await coupon(fresh, { percent_off: 25, duration: "forever", max_redemptions: 5 });

    const response = await fresh.client.post(
      discountPath(fresh, cus.id),
      { coupon: cpn.id },
      { headers: { "X-Correlation-Id": "discount-apply-1" } },
    );
    expect(response.status, response.text).toBe(200);
    const discount = response.body;
    expect(discount).toEqual({
      id: expect.stringMatching(/^di_prod_[0-9a-z]{29}$/),
      object: "discount",
      customer: cus.id,
      coupon: { ...cpn, times_redeemed: 1, updated: expect.stringMatching(ISO) },
      start: expect.stringMatching(ISO),
      end: null,
      livemode: true,
    });
    expect((await fresh.client.get(discountPath(fresh, cus.id))).body).toEqual(discount);
    expect((await fresh.client.get(`/customers/${cus.id}/discount`)).body).toEqual(discount);
    expect((await fresh.client.get(`/coupons/${cpn.id}`)).body).toMatchObject({ times_redeemed: 1, valid: true });

    const [event] = await eventsOf(fresh, discount.id);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_prod_/),
      type: "customer.discount.created",
      aggregate_type: "customer_discount",
      aggregate_id: discount.id,
      data: discount,
      previous_data: null,
      metadata: {},
      correlation_id: "discount-apply-1",
      request_id: response.headers.get("x-request-id"),
      version: 1,
      sequence: 1,
      created: expect.stringMatching(ISO),
      actor_type: "api_key",
      actor_id: fresh.secret.id,
    });
    await expectOneDelivery(fresh, event.id, endpointId);
  });

  it("ends a repeating coupon's discount duration_in_months after its start", async () => {
    const cus = await customer(merchant);
    const cpn = await coupon(merchant, { amount_off_atom: 1000, currency: "usd", duration: "repeating", duration_in_months: 3 });
    const { body: discount } = await merchant.client.post(discountPath(merchant, cus.id), { coupon: cpn.id });
    const start = new Date(discount.start);
    const expected = new Date(start);
    expected.setUTCDate(1);
    expected.setUTCMonth(expected.getUTCMonth() + 3);
    const lastDay = new Date(Date.UTC(expected.getUTCFullYear(), expected.getUTCMonth() + 1, 0)).getUTCDate();
    expected.setUTCDate(Math.min(start.getUTCDate(), lastDay));
    expect(discount.end).toBe(expected.toISOString());
    expect(discount.coupon).toMatchObject({ amount_off_atom: 1000, currency: "usd", duration_in_months: 3 });
  });

  it("replaces the customer's discount in place: customer.discount.updated with previous_data", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["customer.discount.updated"]);
    const cus = await customer(fresh);
    const first = await coupon(fresh, { percent_off: 10, duration: "once" });
    const second = await coupon(fresh, { amount_off_atom: 200, currency: "eur", duration: "forever" });
    const { body: before } = await fresh.client.post(discountPath(fresh, cus.id), { coupon: first.id });

    const response = await fresh.client.post(
      discountPath(fresh, cus.id),
      { coupon: second.id },
      { headers: { "X-Correlation-Id": "discount-replace-1" } },
    );
    expect(response.status, response.text).toBe(200);
    const after = response.body;
    expect(after).toMatchObject({ id: before.id, customer: cus.id, coupon: { id: second.id, times_redeemed: 1 } });
    expect((await fresh.client.get(discountPath(fresh, cus.id))).body).toEqual(after);
    // The replaced coupon's redemption stays counted.
    expect((await fresh.client.get(`/coupons/${first.id}`)).body.times_redeemed).toBe(1);

    const events = await eventsOf(fresh, before.id);
    expect(events.map((e) => e.type)).toEqual(["customer.discount.updated", "customer.discount.created"]);
    expect(events[0]).toMatchObject({
      correlation_id: "discount-replace-1",
      actor_type: "api_key",
      actor_id: fresh.secret.id,
      data: after,
      previous_data: before,
    });
    await expectOneDelivery(fresh, events[0].id, endpointId);
  });

  it("removes the discount: customer.discount.deleted, then 404", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["customer.discount.deleted"]);
    const cus = await customer(fresh);
    const cpn = await coupon(fresh);
    const { body: discount } = await fresh.client.post(discountPath(fresh, cus.id), { coupon: cpn.id });

    const deleted = await fresh.client.delete(discountPath(fresh, cus.id), { headers: { "X-Correlation-Id": "discount-delete-1" } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id: discount.id, object: "discount", deleted: true });
    expectProblem(await fresh.client.get(discountPath(fresh, cus.id)), 404, /has no discount/);
    expectProblem(await fresh.client.delete(discountPath(fresh, cus.id)), 404, /has no discount/);
    expect((await fresh.client.get(`/coupons/${cpn.id}`)).body.times_redeemed).toBe(1);

    const [event] = await eventsOf(fresh, discount.id);
    expect(event).toMatchObject({
      type: "customer.discount.deleted",
      correlation_id: "discount-delete-1",
      actor_type: "api_key",
      actor_id: fresh.secret.id,
      data: { ...discount, deleted: true },
      previous_data: discount,
    });
    await expectOneDelivery(fresh, event.id, endpointId);

    // A later application starts a new discount.
    const again = await fresh.client.post(discountPath(fresh, cus.id), { coupon: cpn.id });
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(discount.id);
    expect((await eventsOf(fresh, again.body.id)).map((e) => e.type)).toEqual(["customer.discount.created"]);
  });

  it("answers 404 for a customer without a discount", async () => {
    const cus = await customer(merchant);
    expectProblem(await merchant.client.get(discountPath(merchant, cus.id)), 404, /has no discount/);
  });

  it("shows the discount on the customer with expand=discount: null without one, no 404", async () => {
    const fresh = await newMerchant();
    const cus = await customer(fresh);
    const none = await fresh.client.get(`/customers/${cus.id}?expand=discount`);
    expect(none.status, none.text).toBe(200);
    expect(none.body).toMatchObject({ id: cus.id, discount: null });
    expect(none.body).not.toHaveProperty("custom_fields");
    expect((await fresh.client.get(`/customers/${cus.id}`)).body).not.toHaveProperty("discount");

    const cpn = await coupon(fresh);
    const { body: discount } = await fresh.client.post(discountPath(fresh, cus.id), { coupon: cpn.id });
    const shown = await fresh.client.get(`/${fresh.accountId}/customers/${cus.id}?expand=discount,custom_fields`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.discount).toEqual(discount);
    expect(shown.body.custom_fields).toEqual({});
    expectProblem(await fresh.client.get("/customers/cus_prod_doesnotexist?expand=discount"), 404);
  });

  describe("unusable coupons are a 422 naming coupon, and change nothing", () => {
    const cases: [string, (m: Merchant) => Promise<string>, RegExp][] = [
      ["an unknown coupon", async () => "cpn_prod_doesnotexist", /No such coupon/],
      [
        "another account's coupon",
        async () => (await coupon(await newMerchant())).id,
        /No such coupon/,
      ],
      [
        "a deleted coupon",
        async (m) => {
          const cpn = await coupon(m);
          await m.client.delete(`/coupons/${cpn.id}`);
          return cpn.id;
        },
        /is deleted/,
      ],
      [
        "an exhausted coupon",
        async (m) => {
          const cpn = await coupon(m, { percent_off: 5, duration: "once", max_redemptions: 1 });
          expect((await m.client.post(discountPath(m, (await customer(m)).id), { coupon: cpn.id })).status).toBe(200);
          return cpn.id;
        },
        /max_redemptions \(1\)/,
      ],
      [
        "an expired coupon",
        async (m) => {
          // In the future when created (a loaded machine may take seconds to get the request there),
          // then waited for until it has expired on the account's clock (`valid` reads that clock).
          const cpn = await coupon(m, { percent_off: 5, duration: "once", redeem_by: new Date(Date.now() + 3_000).toISOString() });
          await eventually(async () => (await m.client.get(`/coupons/${cpn.id}`)).body.valid, (valid) => valid === false);
          return cpn.id;
        },
        /expired/,
      ],
    ];
    it.each(cases)("%s", async (_name, couponId, detail) => {
      const fresh = await newMerchant();
      const cus = await customer(fresh);
      const id = await couponId(fresh);
      const response = await fresh.client.post(discountPath(fresh, cus.id), { coupon: id });
      expectProblem(response, 422, detail);
      expect(response.body.errors).toEqual([{ field: "coupon", message: expect.any(String) }]);
      expectProblem(await fresh.client.get(discountPath(fresh, cus.id)), 404);
      const discountEvents = await fresh.client.get(`/${fresh.accountId}/events?aggregate_type=customer_discount`);
      expect(discountEvents.body.items.filter((e: Json) => e.data.customer === cus.id)).toEqual([]);
    });

    it("shows valid: false on an exhausted coupon", async () => {
      const cpn = await coupon(merchant, { percent_off: 5, duration: "once", max_redemptions: 1 });
      await merchant.client.post(discountPath(merchant, (await customer(merchant)).id), { coupon: cpn.id });
      expect((await merchant.client.get(`/coupons/${cpn.id}`)).body).toMatchObject({ times_redeemed: 1, valid: false });
    });
  });

  it.each([
    ["400 for a missing coupon", {}, 400],
    ["422 for a non-string coupon", { coupon: 42 }, 422],
    ["422 for an empty coupon", { coupon: "" }, 422],
    ["422 for an unknown field", { coupon: "cpn_prod_x", percent_off: 5 }, 422],
  ])("%s", async (_name, body, status) => {
    const cus = await customer(merchant);
    expectProblem(await merchant.client.post(discountPath(merchant, cus.id), body), status);
  });

  it("redeems a coupon with max_redemptions 1 exactly once under concurrent applications", async () => {
    const fresh = await newMerchant();
    const cpn = await coupon(fresh, { percent_off: 50, duration: "once", max_redemptions: 1 });
    const customers = await Promise.all([customer(fresh), customer(fresh), customer(fresh), customer(fresh)]);
    const responses = await Promise.all(customers.map((c) => fresh.client.post(discountPath(fresh, c.id), { coupon: cpn.id })));

    expect(responses.map((r) => r.status).sort()).toEqual([200, 422, 422, 422]);
    for (const refused of responses.filter((r) => r.status !== 200)) {
      expectProblem(refused, 422, /max_redemptions \(1\)/);
      expect(refused.body.errors[0].field).toBe("coupon");
    }
    expect((await fresh.client.get(`/coupons/${cpn.id}`)).body).toMatchObject({ times_redeemed: 1, valid: false });
    const created = await fresh.client.get(`/${fresh.accountId}/events?event_type=customer.discount.created`);
    expect(created.body.total).toBe(1);
  });

  it("hides other accounts' customers behind 404", async () => {
    const other = await newMerchant();
    const theirs = await customer(other);
    const mine = await coupon(merchant);
    expectProblem(await merchant.client.post(`/customers/${theirs.id}/discount`, { coupon: mine.id }), 404, /No such customer/);
    expectProblem(await merchant.client.post(discountPath(merchant, theirs.id), { coupon: mine.id }), 404);
    expectProblem(await merchant.client.get(discountPath(merchant, theirs.id)), 404, /No such customer/);
    expectProblem(await merchant.client.delete(discountPath(merchant, theirs.id)), 404, /No such customer/);
    expectProblem(await merchant.client.get(discountPath(other, theirs.id)), 403);
    expect((await merchant.client.get(`/coupons/${mine.id}`)).body.times_redeemed).toBe(0);
  });

  it("answers 404 for a deleted customer", async () => {
    const cus = await customer(merchant);
    const cpn = await coupon(merchant);
    await merchant.client.delete(`/customers/${cus.id}`);
    expectProblem(await merchant.client.post(discountPath(merchant, cus.id), { coupon: cpn.id }), 404, /No such customer/);
  });

  it("keeps live and sandbox apart", async () => {
    const fresh = await newMerchant();
    const sandbox = api(fresh.sandboxSecret.token);
    const liveCoupon = await coupon(fresh);
    const { body: sandboxCustomer } = await sandbox.post("/customers", { email: "sandbox@example.com" });
    const refused = await sandbox.post(`/customers/${sandboxCustomer.id}/discount`, { coupon: liveCoupon.id });
    expectProblem(refused, 422, /No such coupon/);
    const { body: sandboxCoupon } = await sandbox.post("/coupons", { percent_off: 5, duration: "once" });
    const applied = await sandbox.post(`/customers/${sandboxCustomer.id}/discount`, { coupon: sandboxCoupon.id });
    expect(applied.body).toMatchObject({ livemode: false, coupon: { livemode: false } });
  });

  it("answers 405 with Allow for other methods", async () => {
    const cus = await customer(merchant);
    const response = await merchant.client.offContract.request("PUT", discountPath(merchant, cus.id), { body: {} });
    expectProblem(response, 405);
    expect(response.headers.get("allow")).toBe("GET, POST, DELETE, OPTIONS");
  });
});
