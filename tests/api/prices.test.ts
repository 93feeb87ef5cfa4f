import { beforeAll, describe, expect, it } from "vitest";
import { api, type Json, type Query } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PRICE_EVENTS = ["price.created", "price.updated", "price.deleted"];

let merchant: Merchant;
let endpointId: string;
let productId: string;
beforeAll(async () => {
  merchant = await newMerchant();
  const endpoint = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, {
    url: "https://example.com/h",
    events: PRICE_EVENTS,
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  endpointId = endpoint.body.id;
  productId = (await merchant.client.post("/products", { name: "Pro" })).body.id;
});

async function eventsOf(m: Merchant, aggregateId: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

/** The newest event of the price: its type, actor, correlation id, and one delivery to the endpoint. */
async function expectLatestEvent(aggregateId: string, type: string, correlationId: string): Promise<Json> {
  const [event] = await eventsOf(merchant, aggregateId);
  expect(event).toMatchObject({
    type,
    aggregate_type: "price",
    aggregate_id: aggregateId,
    correlation_id: correlationId,
    actor_type: "api_key",
    actor_id: merchant.secret.id,
  });
  const deliveries = await merchant.client.get(`/${merchant.accountId}/events/${event.id}/deliveries`);
  expect(deliveries.status).toBe(200);
  expect(deliveries.body).toHaveLength(1);
  expect(deliveries.body[0]).toMatchObject({ event_id: event.id, webhook_endpoint_id: endpointId });
  return event;
}

const monthly = () => ({
  product: productId,
  currency: "usd",
  unit_amount_atom: 1500,
  type: "recurring",
  recurring: { interval: "month" },
});

const create = (body: unknown, m: Merchant = merchant) => m.client.post(`/${m.accountId}/prices`, body);

describe("prices", () => {
  it("creates a recurring price: stored, price.created with the full state, one delivery", async () => {
    const response = await merchant.client.post(
      `/${merchant.accountId}/prices`,
      { ...monthly(), currency: "EUR", recurring: { interval: "year", interval_count: 2 }, nickname: "Biennial", metadata: { k: "v" } },
      { headers: { "X-Correlation-Id": "price-create-1" } },
    );
    expect(response.status, response.text).toBe(201);
    const price = response.body;
    expect(price).toEqual({
      id: expect.stringMatching(/^price_prod_[0-9a-z]{29}$/),
      object: "price",
      product: productId,
      currency: "eur",
      unit_amount_atom: 1500,
      type: "recurring",
      recurring: { interval: "year", interval_count: 2, usage_type: "licensed", meter: null },
      billing_scheme: "per_unit",
      tiers_mode: null,
      tiers: null,
      // Every currency the price bills in, its own included (Stripe's expanded form).
      currency_options: { eur: { unit_amount_atom: 1500, tiers: null, tax_behavior: "unspecified" } },
      nickname: "Biennial",
      active: true,
      metadata: { k: "v" },
      livemode: true,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await merchant.client.get(`/${merchant.accountId}/prices/${price.id}`)).body).toEqual(price);

    const event = await expectLatestEvent(price.id, "price.created", "price-create-1");
    expect(event.data).toEqual(price);
    expect(event.previous_data).toBeNull();
  });

  it("creates one-time prices (recurring null), defaults interval_count to 1, keeps large integer amounts", async () => {
    const oneTime = await create({ product: productId, currency: "usd", unit_amount_atom: 0, type: "one_time" });
    expect(oneTime.status, oneTime.text).toBe(201);
    expect(oneTime.body).toMatchObject({ type: "one_time", recurring: null, unit_amount_atom: 0, nickname: null });
    const explicitNull = await create({ product: productId, currency: "usd", unit_amount_atom: 1, type: "one_time", recurring: null });
    expect(explicitNull.status, explicitNull.text).toBe(201);

    const recurring = await create(monthly());
    expect(recurring.body.recurring).toEqual({ interval: "month", interval_count: 1, usage_type: "licensed", meter: null });

    const large = await create({ ...monthly(), unit_amount_atom: Number.MAX_SAFE_INTEGER });
    expect(large.status, large.text).toBe(201);
    expect((await merchant.client.get(`/prices/${large.body.id}`)).body.unit_amount_atom).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("serves the same operations with and without the account segment", async () => {
    const created = await merchant.client.post("/prices", monthly());
    expect(created.status).toBe(201);
    expect((await merchant.client.get(`/prices/${created.body.id}`)).body).toEqual(created.body);
    expect((await merchant.client.get(`/${merchant.accountId}/prices/${created.body.id}`)).body).toEqual(created.body);
  });

  it("allows a price on an archived product", async () => {
    const { body: archived } = await merchant.client.post("/products", { name: "Archived", active: false });
    expect((await create({ ...monthly(), product: archived.id })).status).toBe(201);
  });

  it("updates nickname, active and metadata: price.updated with previous_data; a no-op emits nothing", async () => {
    const { body: price } = await create({ ...monthly(), nickname: "Old", metadata: { a: "1", b: "2" } });
    const updated = await merchant.client.post(
      `/${merchant.accountId}/prices/${price.id}`,
      { nickname: null, active: false, metadata: { a: null, c: "3" } },
      { headers: { "X-Correlation-Id": "price-update-1" } },
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ nickname: null, active: false, metadata: { b: "2", c: "3" }, unit_amount_atom: 1500 });
    expect((await merchant.client.get(`/prices/${price.id}`)).body).toEqual(updated.body);

    const event = await expectLatestEvent(price.id, "price.updated", "price-update-1");
    expect(event.data).toEqual(updated.body);
    expect(event.previous_data).toEqual(price);

    const noop = await merchant.client.post(`/prices/${price.id}`, { active: false, metadata: { b: "2" } });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual(updated.body);
    expect((await eventsOf(merchant, price.id)).map((e) => e.type)).toEqual(["price.updated", "price.created"]);

    const restored = await merchant.client.post(`/prices/${price.id}`, { active: true });
    expect(restored.body.active).toBe(true);
  });

  it.each([
    ["unit_amount_atom", 2000],
    ["currency", "eur"],
    ["type", "one_time"],
    ["recurring", { interval: "year" }],
    ["product", "prod_prod_00000000000000000000000000000"],
  ])("refuses to change the immutable %s: 422, create a new price instead", async (field, value) => {
    const { body: price } = await create(monthly());
    const response = await merchant.client.post(`/prices/${price.id}`, { nickname: "x", [field]: value });
    expectProblem(response, 422, /create a new price instead/);
    expect(response.body.errors).toEqual([{ field, message: `${field} cannot be changed; create a new price instead.` }]);
    expect((await merchant.client.get(`/prices/${price.id}`)).body).toEqual(price);
    expect((await eventsOf(merchant, price.id)).map((e) => e.type)).toEqual(["price.created"]);
  });

  it("deletes a price: price.deleted, then 404 and gone from the list", async () => {
    const { body: price } = await create(monthly());
    const deleted = await merchant.client.delete(`/${merchant.accountId}/prices/${price.id}`, {
      headers: { "X-Correlation-Id": "price-delete-1" },
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id: price.id, object: "price", deleted: true });

    const event = await expectLatestEvent(price.id, "price.deleted", "price-delete-1");
    expect(event.data).toMatchObject({ ...price, updated: expect.stringMatching(ISO), deleted: true });
    expect(event.previous_data).toEqual(price);

    expectProblem(await merchant.client.get(`/prices/${price.id}`), 404, /No such price/);
    expectProblem(await merchant.client.post(`/prices/${price.id}`, { nickname: "x" }), 404);
    expectProblem(await merchant.client.delete(`/prices/${price.id}`), 404);
    const list = await merchant.client.get(`/prices?product=${productId}&limit=100`);
    expect(list.body.items.map((p: Json) => p.id)).not.toContain(price.id);
  });

  it("lists newest first, paginated, with the product, active and type filters", async () => {
    const fresh = await newMerchant();
    const [a, b] = await Promise.all(
      ["A", "B"].map(async (name) => (await fresh.client.post("/products", { name })).body.id as string),
    );
    const specs = [
      { product: a, type: "one_time", active: true },
      { product: a, type: "recurring", recurring: { interval: "week" }, active: false },
      { product: b, type: "recurring", recurring: { interval: "day", interval_count: 30 }, active: true },
    ];
    const ids: string[] = [];
    for (const spec of specs) {
      const created = await create({ currency: "usd", unit_amount_atom: 100, ...spec }, fresh);
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.id);
    }
    const [p0, p1, p2] = ids;
    const listed = async (query: Query) => {
      const response = await fresh.client.get(`/${fresh.accountId}/prices${query}`);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    expect((await listed("")).items.map((p: Json) => p.id)).toEqual([p2, p1, p0]);
    expect(await listed("?limit=2")).toMatchObject({ total: 3, has_more: true });
    expect((await listed(`?product=${a}`)).items.map((p: Json) => p.id)).toEqual([p1, p0]);
    expect((await listed("?active=true")).items.map((p: Json) => p.id)).toEqual([p2, p0]);
    expect((await listed("?active=false")).items.map((p: Json) => p.id)).toEqual([p1]);
    expect((await listed("?type=recurring")).items.map((p: Json) => p.id)).toEqual([p2, p1]);
    expect(await listed(`?type=recurring&active=true&product=${b}`)).toMatchObject({ total: 1, items: [{ id: p2 }] });
    expect(await listed("?product=prod_prod_unknown")).toMatchObject({ total: 0, items: [] });

    for (const query of ["type=monthly", "active=maybe", "product=", "currency=usd"]) {
      expectProblem(await fresh.client.get(`/prices?${query}`), 400);
    }
  });

  describe("validation", () => {
    it.each([
      ["product", { currency: "usd", unit_amount_atom: 1, type: "one_time" }],
      ["currency", { product: "p", unit_amount_atom: 1, type: "one_time" }],
      ["unit_amount_atom", { product: "p", currency: "usd", type: "one_time" }],
      ["type", { product: "p", currency: "usd", unit_amount_atom: 1 }],
      ["recurring.interval", { product: "p", currency: "usd", unit_amount_atom: 1, type: "recurring", recurring: {} }],
      // Required by another field's value: still a missing field.
      ["recurring", { product: "p", currency: "usd", unit_amount_atom: 1, type: "recurring" }],
    ])("answers 400 naming the missing %s", async (field, body) => {
      const response = await create(body);
      expectProblem(response, 400, new RegExp(`Missing required field: ${field.replace(".", "\\.")}`));
      expect(response.body.errors).toEqual([{ field, message: "Required." }]);
    });

    it.each([
      ["a float amount", { unit_amount_atom: 12.5 }, "unit_amount_atom"],
      ["a negative amount", { unit_amount_atom: -1 }, "unit_amount_atom"],
      ["an amount beyond 2^53 - 1", { unit_amount_atom: 2 ** 53 }, "unit_amount_atom"],
      ["a string amount", { unit_amount_atom: "1500" }, "unit_amount_atom"],
      ["a 2-letter currency", { currency: "us" }, "currency"],
      ["a numeric currency", { currency: "123" }, "currency"],
      ["an unknown type", { type: "metered" }, "type"],
      ["recurring null", { recurring: null }, "recurring"],
      ["one_time with recurring", { type: "one_time" }, "recurring"],
      ["an unknown interval", { recurring: { interval: "fortnight" } }, "recurring.interval"],
      ["interval_count 0", { recurring: { interval: "month", interval_count: 0 } }, "recurring.interval_count"],
      ["interval_count 366", { recurring: { interval: "month", interval_count: 366 } }, "recurring.interval_count"],
      ["a fractional interval_count", { recurring: { interval: "month", interval_count: 1.5 } }, "recurring.interval_count"],
      ["an unknown product", { product: "prod_prod_00000000000000000000000000000" }, "product"],
      ["an empty nickname", { nickname: "" }, "nickname"],
      ["an unknown field", { tiers: [] }, "tiers"],
    ])("answers 422 on create with %s", async (_, overrides, field) => {
      const response = await create({ ...monthly(), ...overrides });
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
    });

    it("answers 422 on product for another account's product, and for a deleted one", async () => {
      const other = await newMerchant();
      const { body: theirs } = await other.client.post("/products", { name: "Theirs" });
      const foreign = await create({ ...monthly(), product: theirs.id });
      expectProblem(foreign, 422, /No such product/);
      expect(foreign.body.errors).toEqual([{ field: "product", message: `No such product: '${theirs.id}'.` }]);

      const { body: gone } = await merchant.client.post("/products", { name: "Gone" });
      await merchant.client.delete(`/products/${gone.id}`);
      expectProblem(await create({ ...monthly(), product: gone.id }), 422, /No such product/);
    });

    it.each([
      ["a non-boolean active", { active: "no" }, "active"],
      ["an empty nickname", { nickname: "" }, "nickname"],
      ["an unknown field", { tiers: [] }, "tiers"],
    ])("answers 422 on update with %s", async (_, body, field) => {
      const { body: price } = await create(monthly());
      const response = await merchant.client.post(`/prices/${price.id}`, body);
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
    });
  });

  it("hides other accounts' prices behind 404", async () => {
    const other = await newMerchant();
    const { body: theirProduct } = await other.client.post("/products", { name: "Theirs" });
    const { body: theirs } = await create({ ...monthly(), product: theirProduct.id }, other);
    expectProblem(await merchant.client.get(`/prices/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/prices/${theirs.id}`), 404);
    expectProblem(await merchant.client.post(`/prices/${theirs.id}`, { nickname: "hijack" }), 404);
    expectProblem(await merchant.client.delete(`/prices/${theirs.id}`), 404);
    expect((await merchant.client.get(`/prices?product=${theirProduct.id}`)).body.total).toBe(0);
    expect((await other.client.get(`/prices/${theirs.id}`)).body.nickname).toBeNull();
  });

  it("lets publishable tokens read prices but not write them", async () => {
    const { body: price } = await create(monthly());
    const browser = api(merchant.publishable.token);
    const listed = await browser.get(`/${merchant.accountId}/prices?product=${productId}&limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: Json) => p.id)).toContain(price.id);
    expect((await browser.get(`/prices/${price.id}`)).body).toEqual(price);

    expectProblem(await browser.post("/prices", monthly()), 403, /Publishable tokens/);
    expectProblem(await browser.post(`/prices/${price.id}`, { nickname: "Nope" }), 403);
    expectProblem(await browser.delete(`/prices/${price.id}`), 403);
    expect((await eventsOf(merchant, price.id)).map((e) => e.type)).toEqual(["price.created"]);
  });
});
