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
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

async function eventsOf(m: Merchant, aggregateId: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

/** A webhook endpoint subscribed to `types`; nothing needs to listen at its URL. */
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

describe("coupons", () => {
  it("creates a percentage coupon: stored as basis points, shown as percent_off; coupon.created and its delivery", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["coupon.created"]);
    const response = await fresh.client.post(
      `/${fresh.accountId}/coupons`,
      { name: "Launch", percent_off: 33.33, duration: "forever", metadata: { campaign: "q4" } },
      { headers: { "X-Correlation-Id": "coupon-create-1" } },
    );
    expect(response.status, response.text).toBe(201);
    const coupon = response.body;
    expect(coupon).toEqual({
      id: expect.stringMatching(/^cpn_prod_[0-9a-z]{29}$/),
      object: "coupon",
      name: "Launch",
      percent_off: 33.33,
      amount_off_atom: null,
      currency: null,
      currency_options: {},
      duration: "forever",
      duration_in_months: null,
      max_redemptions: null,
      times_redeemed: 0,
      redeem_by: null,
      valid: true,
      metadata: { campaign: "q4" },
      livemode: true,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await fresh.client.get(`/${fresh.accountId}/coupons/${coupon.id}`)).body).toEqual(coupon);

    const [event] = await eventsOf(fresh, coupon.id);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_prod_/),
      type: "coupon.created",
      aggregate_type: "coupon",
      aggregate_id: coupon.id,
      data: coupon,
      previous_data: null,
      metadata: {},
      correlation_id: "coupon-create-1",
      request_id: response.headers.get("x-request-id"),
      version: 1,
      sequence: 1,
      created: expect.stringMatching(ISO),
      actor_type: "api_key",
      actor_id: fresh.secret.id,
    });
    await expectOneDelivery(fresh, event.id, endpointId);
  });

  it("creates an amount coupon with a lowercased currency, a repeating duration and limits", async () => {
    const redeemBy = inDays(30);
    const response = await merchant.client.post(`/${merchant.accountId}/coupons`, {
      amount_off_atom: 500,
      currency: "EUR",
      duration: "repeating",
      duration_in_months: 3,
      max_redemptions: 10,
      redeem_by: redeemBy,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      name: null,
      percent_off: null,
      amount_off_atom: 500,
      currency: "eur",
      duration: "repeating",
      duration_in_months: 3,
      max_redemptions: 10,
      times_redeemed: 0,
      redeem_by: redeemBy,
      valid: true,
      metadata: {},
    });
  });

  it.each([
    [0.01, 0.01],
    [25.5, 25.5],
    [100, 100],
    [12, 12],
  ])("keeps percent_off %d exactly (as %d)", async (given, shown) => {
    const response = await merchant.client.post("/coupons", { percent_off: given, duration: "once" });
    expect(response.status, response.text).toBe(201);
    expect(response.body.percent_off).toBe(shown);
  });

  it("serves the same operations with and without the account segment", async () => {
    const created = await merchant.client.post("/coupons", { percent_off: 10, duration: "once" });
    expect(created.status).toBe(201);
    expect((await merchant.client.get(`/coupons/${created.body.id}`)).body).toEqual(created.body);
    expect((await merchant.client.get(`/${merchant.accountId}/coupons/${created.body.id}`)).body).toEqual(created.body);
  });

  describe("validation", () => {
    const base = { percent_off: 10, duration: "once" };
    const missing: [string, Json, string[]][] = [
      ["no duration", { percent_off: 10 }, ["duration"]],
      ["neither percent_off nor amount_off_atom", { duration: "once" }, ["percent_off"]],
      ["amount_off_atom without currency", { amount_off_atom: 100, duration: "once" }, ["currency"]],
      ["repeating without duration_in_months", { ...base, duration: "repeating" }, ["duration_in_months"]],
      ["an empty body", {}, ["duration"]],
    ];
    it.each(missing)("400 for %s", async (_name, body, fields) => {
      const response = await merchant.client.post("/coupons", body);
      expectProblem(response, 400, /Missing required field/);
      expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    });

    const invalid: [string, Json, string][] = [
      ["both percent_off and amount_off_atom", { ...base, amount_off_atom: 100, currency: "eur" }, "amount_off_atom"],
      ["currency with percent_off", { ...base, currency: "eur" }, "currency"],
      ["percent_off 0", { ...base, percent_off: 0 }, "percent_off"],
      ["percent_off over 100", { ...base, percent_off: 100.01 }, "percent_off"],
      ["percent_off negative", { ...base, percent_off: -5 }, "percent_off"],
      ["percent_off with 3 decimals", { ...base, percent_off: 33.333 }, "percent_off"],
      ["percent_off as a string", { ...base, percent_off: "10" }, "percent_off"],
      ["amount_off_atom 0", { amount_off_atom: 0, currency: "eur", duration: "once" }, "amount_off_atom"],
      ["fractional amount_off_atom", { amount_off_atom: 10.5, currency: "eur", duration: "once" }, "amount_off_atom"],
      ["amount_off_atom beyond safe integers", { amount_off_atom: 2 ** 53, currency: "eur", duration: "once" }, "amount_off_atom"],
      ["a malformed currency", { amount_off_atom: 100, currency: "euro", duration: "once" }, "currency"],
      ["an unknown duration", { ...base, duration: "weekly" }, "duration"],
      ["duration_in_months without repeating", { ...base, duration_in_months: 3 }, "duration_in_months"],
      ["duration_in_months 0", { ...base, duration: "repeating", duration_in_months: 0 }, "duration_in_months"],
      ["max_redemptions 0", { ...base, max_redemptions: 0 }, "max_redemptions"],
      ["redeem_by in the past", { ...base, redeem_by: inDays(-1) }, "redeem_by"],
      ["redeem_by not a datetime", { ...base, redeem_by: "tomorrow" }, "redeem_by"],
      ["an unknown field", { ...base, percent: 10 }, "percent"],
    ];
    it.each(invalid)("422 for %s", async (_name, body, field) => {
      const response = await merchant.client.post("/coupons", body);
      expectProblem(response, 422);
      expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it("creates nothing on a refused request", async () => {
      const fresh = await newMerchant();
      await fresh.client.post("/coupons", { ...base, amount_off_atom: 1, currency: "eur" });
      expect((await fresh.client.get("/coupons")).body.total).toBe(0);
    });
  });

  it("updates name and metadata only: coupon.updated with previous_data, no event for a no-op, 422 for the terms", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["coupon.updated"]);
    const { body: coupon } = await fresh.client.post("/coupons", {
      name: "Old",
      percent_off: 20,
      duration: "once",
      metadata: { a: "1", b: "2" },
    });
    const updated = await fresh.client.post(
      `/coupons/${coupon.id}`,
      { name: "New", metadata: { a: null, c: "3" } },
      { headers: { "X-Correlation-Id": "coupon-update-1" } },
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ ...coupon, name: "New", metadata: { b: "2", c: "3" }, updated: expect.stringMatching(ISO) });
    expect((await fresh.client.get(`/coupons/${coupon.id}`)).body).toEqual(updated.body);

    expect((await fresh.client.post(`/coupons/${coupon.id}`, { name: "New" })).status).toBe(200);

    for (const terms of [
      { percent_off: 50 },
      { amount_off_atom: 100 },
      { currency: "usd" },
      { duration: "forever" },
      { duration_in_months: 2 },
      { max_redemptions: 5 },
      { redeem_by: inDays(3) },
    ]) {
      const refused = await fresh.client.post(`/coupons/${coupon.id}`, { name: "Sneaky", ...terms });
      expectProblem(refused, 422, /cannot change after creation/);
      expect(refused.body.errors[0].field).toBe(Object.keys(terms)[0]);
    }
    expect((await fresh.client.get(`/coupons/${coupon.id}`)).body).toEqual(updated.body);

    const events = await eventsOf(fresh, coupon.id);
    expect(events.map((e) => e.type)).toEqual(["coupon.updated", "coupon.created"]);
    expect(events[0]).toMatchObject({
      correlation_id: "coupon-update-1",
      actor_type: "api_key",
      actor_id: fresh.secret.id,
      data: updated.body,
      previous_data: coupon,
    });
    await expectOneDelivery(fresh, events[0].id, endpointId);
  });

  it("deletes a coupon softly: coupon.deleted, then 404 and gone from the list", async () => {
    const fresh = await newMerchant();
    const endpointId = await subscribe(fresh, ["coupon.deleted"]);
    const { body: coupon } = await fresh.client.post("/coupons", { amount_off_atom: 300, currency: "usd", duration: "once" });
    const deleted = await fresh.client.delete(`/coupons/${coupon.id}`, { headers: { "X-Correlation-Id": "coupon-delete-1" } });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: coupon.id, object: "coupon", deleted: true });

    expectProblem(await fresh.client.get(`/coupons/${coupon.id}`), 404, /No such coupon/);
    expectProblem(await fresh.client.delete(`/coupons/${coupon.id}`), 404);
    expectProblem(await fresh.client.post(`/coupons/${coupon.id}`, { name: "x" }), 404);
    expect((await fresh.client.get("/coupons")).body).toEqual({ items: [], total: 0, has_more: false });

    const [event] = await eventsOf(fresh, coupon.id);
    expect(event).toMatchObject({
      type: "coupon.deleted",
      correlation_id: "coupon-delete-1",
      actor_type: "api_key",
      actor_id: fresh.secret.id,
      data: { ...coupon, valid: false, deleted: true, updated: expect.stringMatching(ISO) },
      previous_data: coupon,
    });
    await expectOneDelivery(fresh, event.id, endpointId);
  });

  it("lists newest first with pagination", async () => {
    const fresh = await newMerchant();
    const ids: string[] = [];
    for (const percent of [10, 20, 30]) ids.push((await fresh.client.post("/coupons", { percent_off: percent, duration: "once" })).body.id);
    const page = await fresh.client.get(`/${fresh.accountId}/coupons?limit=2`);
    expect(page.body.items.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    expect(page.body).toMatchObject({ total: 3, has_more: true });
    expectProblem(await fresh.client.get("/coupons?limit=0"), 400);
  });

  it("hides other accounts' coupons behind 404", async () => {
    const other = await newMerchant();
    const { body: theirs } = await other.client.post("/coupons", { percent_off: 5, duration: "once" });
    expectProblem(await merchant.client.get(`/coupons/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/coupons/${theirs.id}`), 404);
    expectProblem(await merchant.client.post(`/coupons/${theirs.id}`, { name: "hijack" }), 404);
    expectProblem(await merchant.client.delete(`/coupons/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${other.accountId}/coupons/${theirs.id}`), 403);
    expect((await other.client.get(`/coupons/${theirs.id}`)).body).toEqual(theirs);
  });

  it("keeps live and sandbox apart", async () => {
    const fresh = await newMerchant();
    const sandbox = api(fresh.sandboxSecret.token);
    const created = await sandbox.post("/coupons", { percent_off: 15, duration: "once" });
    expect(created.body).toMatchObject({ livemode: false });
    expect((await sandbox.get("/coupons")).body.total).toBe(1);
    expect((await fresh.client.get("/coupons")).body.total).toBe(0);
    expectProblem(await fresh.client.get(`/coupons/${created.body.id}`), 404);
  });

  it("refuses publishable tokens", async () => {
    const publishable = api(merchant.publishable.token);
    expectProblem(await publishable.get("/coupons"), 403);
    expectProblem(await publishable.post("/coupons", { percent_off: 5, duration: "once" }), 403);
  });
});
