import { beforeAll, describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { refusedUrl } from "../helpers/receiver";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PRODUCT_EVENTS = ["product.created", "product.updated", "product.deleted"];

let merchant: Merchant;
let endpointId: string;
beforeAll(async () => {
  merchant = await newMerchant();
  const endpoint = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, {
    url: await refusedUrl(),
    events: PRODUCT_EVENTS,
  });
  expect(endpoint.status, endpoint.text).toBe(201);
  endpointId = endpoint.body.id;
});

async function eventsOf(m: Merchant, aggregateId: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

/** The newest event of the aggregate: its type, actor, correlation id, and one delivery to the endpoint. */
async function expectLatestEvent(aggregateId: string, type: string, correlationId: string): Promise<Json> {
  const [event] = await eventsOf(merchant, aggregateId);
  expect(event).toMatchObject({
    type,
    aggregate_type: "product",
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

const create = (body: unknown, m: Merchant = merchant) => m.client.post(`/${m.accountId}/products`, body);

describe("products", () => {
  it("creates a product: stored, product.created with the full state, one delivery", async () => {
    const response = await merchant.client.post(
      `/${merchant.accountId}/products`,
      { name: "Pro plan", description: "Everything", metadata: { tier: "pro" } },
      { headers: { "X-Correlation-Id": "prod-create-1" } },
    );
    expect(response.status, response.text).toBe(201);
    const product = response.body;
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_prod_[0-9a-z]{29}$/),
      object: "product",
      name: "Pro plan",
      description: "Everything",
      active: true,
      metadata: { tier: "pro" },
      livemode: true,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect((await merchant.client.get(`/${merchant.accountId}/products/${product.id}`)).body).toEqual(product);

    const event = await expectLatestEvent(product.id, "product.created", "prod-create-1");
    expect(event.data).toEqual(product);
    expect(event.previous_data).toBeNull();
  });

  it("defaults description to null and active to true, and may create archived", async () => {
    const plain = await create({ name: "Plain" });
    expect(plain.body).toMatchObject({ description: null, active: true, metadata: {} });
    const archived = await create({ name: "Old", active: false });
    expect(archived.body.active).toBe(false);
    const event = await expectLatestEvent(plain.body.id, "product.created", plain.headers.get("x-request-id")!);
    expect(event.data).toEqual(plain.body);
  });

  it("serves the same operations with and without the account segment", async () => {
    const created = await merchant.client.post("/products", { name: "Unscoped" });
    expect(created.status).toBe(201);
    expect((await merchant.client.get(`/products/${created.body.id}`)).body).toEqual(created.body);
    expect((await merchant.client.get(`/${merchant.accountId}/products/${created.body.id}`)).body).toEqual(created.body);
  });

  it("updates a product: product.updated with previous_data; a no-op emits nothing", async () => {
    const { body: product } = await create({ name: "Basic", description: "d", metadata: { a: "1", b: "2" } });
    const updated = await merchant.client.post(
      `/${merchant.accountId}/products/${product.id}`,
      { name: "Basic+", description: null, metadata: { a: null, c: "3" } },
      { headers: { "X-Correlation-Id": "prod-update-1" } },
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: "Basic+", description: null, active: true, metadata: { b: "2", c: "3" } });
    expect((await merchant.client.get(`/products/${product.id}`)).body).toEqual(updated.body);

    const event = await expectLatestEvent(product.id, "product.updated", "prod-update-1");
    expect(event.data).toEqual(updated.body);
    expect(event.previous_data).toEqual(product);

    const noop = await merchant.client.post(`/products/${product.id}`, { name: "Basic+", metadata: { b: "2" } });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual(updated.body);
    const empty = await merchant.client.post(`/products/${product.id}`, {});
    expect(empty.status).toBe(200);
    expect((await eventsOf(merchant, product.id)).map((e) => e.type)).toEqual(["product.updated", "product.created"]);
  });

  it("archives with active:false (product.updated) and restores with active:true", async () => {
    const { body: product } = await create({ name: "Seasonal" });
    const archived = await merchant.client.post(`/products/${product.id}`, { active: false }, {
      headers: { "X-Correlation-Id": "archive-1" },
    });
    expect(archived.body.active).toBe(false);
    const event = await expectLatestEvent(product.id, "product.updated", "archive-1");
    expect(event.previous_data.active).toBe(true);
    expect(event.data.active).toBe(false);
    // Archived products are still served.
    expect((await merchant.client.get(`/products/${product.id}`)).body.active).toBe(false);

    const restored = await merchant.client.post(`/products/${product.id}`, { active: true });
    expect(restored.body.active).toBe(true);
  });

  it("deletes a product: product.deleted, then 404 and gone from the list", async () => {
    const { body: product } = await create({ name: "Doomed" });
    const deleted = await merchant.client.delete(`/${merchant.accountId}/products/${product.id}`, {
      headers: { "X-Correlation-Id": "prod-delete-1" },
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id: product.id, object: "product", deleted: true });

    const event = await expectLatestEvent(product.id, "product.deleted", "prod-delete-1");
    expect(event.data).toMatchObject({ ...product, updated: expect.stringMatching(ISO), deleted: true });
    expect(event.previous_data).toEqual(product);

    expectProblem(await merchant.client.get(`/products/${product.id}`), 404, /No such product/);
    expectProblem(await merchant.client.post(`/products/${product.id}`, { name: "x" }), 404);
    expectProblem(await merchant.client.delete(`/products/${product.id}`), 404);
    const list = await merchant.client.get("/products?limit=100");
    expect(list.body.items.map((p: Json) => p.id)).not.toContain(product.id);
  });

  it("refuses to delete a product with prices (409), and deletes it once they are deleted", async () => {
    const { body: product } = await create({ name: "Priced" });
    const price = await merchant.client.post("/prices", {
      product: product.id,
      currency: "usd",
      unit_amount_atom: 500,
      type: "one_time",
    });
    expect(price.status, price.text).toBe(201);

    const refused = await merchant.client.delete(`/products/${product.id}`);
    expectProblem(refused, 409, /has 1 price that is not deleted; archive the product/);
    expect((await merchant.client.get(`/products/${product.id}`)).status).toBe(200);
    expect((await eventsOf(merchant, product.id)).map((e) => e.type)).toEqual(["product.created"]);

    // An archived price still counts: only deleted prices release the product.
    await merchant.client.post(`/prices/${price.body.id}`, { active: false });
    expectProblem(await merchant.client.delete(`/products/${product.id}`), 409);

    expect((await merchant.client.delete(`/prices/${price.body.id}`)).status).toBe(200);
    expect((await merchant.client.delete(`/products/${product.id}`)).status).toBe(200);
  });

  it("lists newest first, paginated, with the active filter", async () => {
    const fresh = await newMerchant();
    const ids: string[] = [];
    for (const [name, active] of [["A", true], ["B", false], ["C", true]] as const) {
      ids.push((await create({ name, active }, fresh)).body.id);
    }
    const all = await fresh.client.get(`/${fresh.accountId}/products`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, has_more: false });
    expect(all.body.items.map((p: Json) => p.id)).toEqual([...ids].reverse());

    const page = await fresh.client.get("/products?limit=1&offset=1");
    expect(page.body).toMatchObject({ total: 3, has_more: true });
    expect(page.body.items.map((p: Json) => p.id)).toEqual([ids[1]]);

    const active = await fresh.client.get("/products?active=true");
    expect(active.body.items.map((p: Json) => p.id)).toEqual([ids[2], ids[0]]);
    expect(active.body.total).toBe(2);
    const archived = await fresh.client.get("/products?active=false");
    expect(archived.body.items.map((p: Json) => p.id)).toEqual([ids[1]]);

    for (const query of ["active=yes", "active=1", "status=active", "limit=0"]) {
      expectProblem(await fresh.client.get(`/products?${query}`), 400);
    }
  });

  describe("validation", () => {
    it.each([
      ["no name", {}, "name"],
      ["only a description", { description: "x" }, "name"],
    ])("answers 400 naming a missing field: %s", async (_, body, field) => {
      const response = await create(body);
      expectProblem(response, 400, new RegExp(`Missing required field: ${field}`));
      expect(response.body.errors).toEqual([{ field, message: "Required." }]);
    });

    it.each([
      ["empty name", { name: "" }, "name"],
      ["numeric name", { name: 42 }, "name"],
      ["null name", { name: null }, "name"],
      ["long name", { name: "x".repeat(257) }, "name"],
      ["non-boolean active", { name: "P", active: "yes" }, "active"],
      ["non-string metadata value", { name: "P", metadata: { a: 1 } }, "metadata.a"],
      ["unknown field", { name: "P", price: 100 }, "price"],
    ])("answers 422 on create: %s", async (_, body, field) => {
      const response = await create(body);
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
    });

    it.each([
      ["empty name", { name: "" }, "name"],
      ["null name", { name: null }, "name"],
      ["null active", { active: null }, "active"],
      ["unknown field", { livemode: false }, "livemode"],
    ])("answers 422 on update: %s", async (_, body, field) => {
      const { body: product } = await create({ name: "Valid" });
      const response = await merchant.client.post(`/products/${product.id}`, body);
      expectProblem(response, 422);
      expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
      expect((await eventsOf(merchant, product.id)).map((e) => e.type)).toEqual(["product.created"]);
    });
  });

  it("hides other accounts' products behind 404", async () => {
    const other = await newMerchant();
    const { body: theirs } = await create({ name: "Theirs" }, other);
    expectProblem(await merchant.client.get(`/products/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/products/${theirs.id}`), 404);
    expectProblem(await merchant.client.post(`/products/${theirs.id}`, { name: "hijack" }), 404);
    expectProblem(await merchant.client.delete(`/products/${theirs.id}`), 404);
    expect((await other.client.get(`/products/${theirs.id}`)).body.name).toBe("Theirs");
    expectProblem(await merchant.client.get(`/${other.accountId}/products`), 403);
  });

  it("lets publishable tokens read products but not write them", async () => {
    const { body: product } = await create({ name: "Public" });
    const browser = api(merchant.publishable.token);
    const listed = await browser.get(`/${merchant.accountId}/products?limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((p: Json) => p.id)).toContain(product.id);
    expect((await browser.get(`/products/${product.id}`)).body).toEqual(product);

    expectProblem(await browser.post("/products", { name: "Nope" }), 403, /Publishable tokens/);
    expectProblem(await browser.post(`/products/${product.id}`, { name: "Nope" }), 403);
    expectProblem(await browser.delete(`/products/${product.id}`), 403);
    expect((await eventsOf(merchant, product.id)).map((e) => e.type)).toEqual(["product.created"]);
  });

  it("keeps live and sandbox apart", async () => {
    const fresh = await newMerchant();
    const sandbox = api(fresh.sandboxSecret.token);
    const created = await sandbox.post("/products", { name: "Sandbox" });
    expect(created.body).toMatchObject({ livemode: false });
    expect((await sandbox.get("/products")).body.total).toBe(1);
    expect((await fresh.client.get("/products")).body.total).toBe(0);
    expectProblem(await fresh.client.get(`/products/${created.body.id}`), 404);
  });
});
