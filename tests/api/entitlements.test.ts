import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { api, type AccountPath, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const DAY = 86_400_000;

/** A sandbox account with a plan product (feature `reports` attached) and a customer. */
async function sandbox() {
  const merchant = await newMerchant();
  const account = merchant.sandboxAccountId;
  const client = api(merchant.sandboxSecret.token);
  const post = async (path: AccountPath<"post">, body: unknown = {}, status = [200, 201]) => {
    const response = await client.post(`/${account}${path}`, body);
    expect(status, response.text).toContain(response.status);
    return response.body;
  };
  const get = async (path: AccountPath<"get">) => {
    const response = await client.get(`/${account}${path}`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const product = await post("/products", { name: "Pro" });
  const price = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } });
  const reports = await post("/features", { lookup_key: "reports", name: "Reports" });
  await post(`/products/${product.id}/features`, { feature: reports.id });
  const customer = await post("/customers", { email: "ent@example.com" });
  const entitled = async (): Promise<string[]> => (await get(`/customers/${customer.id}/entitlements`)).items.map((item: Json) => item.lookup_key);
  const entitlementEvents = async (): Promise<Json[]> =>
    [...(await get(`/events?aggregate_id=${customer.id}&event_type=customer.entitlements.updated&limit=100`)).items].reverse();
  const advance = (to: Date) => post("/test-clock/advance", { to: to.toISOString() });
  return { merchant, account, client, post, get, product, price, reports, customer, entitled, entitlementEvents, advance };
}

describe("features", () => {
  it("creates, reads and lists features; a lookup_key is unique in the account; feature.created", async () => {
    const { merchant, client, account, post, get, reports } = await sandbox();
    expect(reports).toEqual({
      id: expect.stringMatching(/^feat_prod_/),
      object: "feature",
      lookup_key: "reports",
      name: "Reports",
      metadata: {},
      livemode: false,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect(await get(`/features/${reports.id}`)).toEqual(reports);
    expect(await get("/features")).toMatchObject({ items: [reports], total: 1, has_more: false });
    expectProblem(await client.post(`/${account}/features`, { lookup_key: "reports", name: "Again" }), 422, /already exists/);
    const [event] = (await get(`/events?aggregate_id=${reports.id}`)).items;
    expect(event).toMatchObject({ type: "feature.created", data: reports, previous_data: null });
    // Another account sees none of it.
    expectProblem(await api(merchant.secret.token).get(`/${merchant.accountId}/features/${reports.id}`), 404);
    await post("/features", { lookup_key: "exports", name: "Exports", metadata: { tier: "2" } });
    expect((await get("/features")).total).toBe(2);
  });

  it.each([
    [{ name: "No key" }, 400],
    [{ lookup_key: "Has Spaces", name: "x" }, 422],
    [{ lookup_key: "ok", name: "" }, 422],
    [{ lookup_key: "ok", name: "x", extra: 1 }, 422],
  ])("refuses %j with %i and creates nothing", async (body, status) => {
    const { client, account, get } = await sandbox();
    expectProblem(await client.post(`/${account}/features`, body), status);
    expect((await get("/features")).total).toBe(1);
  });

  it("attaches (idempotently), lists and detaches a product's features; unknown ids are 404/422", async () => {
    const { client, account, post, get, product, reports } = await sandbox();
    const again = await post(`/products/${product.id}/features`, { feature: reports.id });
    expect(again).toMatchObject({ object: "product_feature", product: product.id, feature: reports });
    expect(await get(`/products/${product.id}/features`)).toEqual({ items: [again], total: 1, has_more: false });
    expect((await get(`/events?aggregate_id=${again.id}`)).total).toBe(1);
    expectProblem(await client.post(`/${account}/products/${product.id}/features`, { feature: "feat_prod_nope" }), 422, /No such feature/);
    expectProblem(await client.post(`/${account}/products/prod_prod_nope/features`, { feature: reports.id }), 404);
    expectProblem(await client.delete(`/${account}/products/${product.id}/features/feat_prod_nope`), 404);
    const removed = await client.delete(`/${account}/products/${product.id}/features/${reports.id}`);
    expect(removed.body).toEqual({ id: again.id, object: "product_feature", deleted: true });
    expect((await get(`/products/${product.id}/features`)).items).toEqual([]);
  });
});

describe("entitlements", () => {
  it("follow the subscription: granted at creation, gone while paused, back on resume, gone when cancelled — each in the change's transaction", async () => {
    const { client, account, post, get, price, customer, reports, entitled, entitlementEvents } = await sandbox();
    expect(await entitled()).toEqual([]);
    const created = await client.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: price.id }] }, { headers: { "X-Correlation-Id": "ent-create" } });
    expect(created.status, created.text).toBe(201);
    const subscription = created.body;
    expect(await get(`/customers/${customer.id}/entitlements`)).toEqual({
      object: "customer_entitlements",
      customer: customer.id,
      items: [{ feature: reports.id, lookup_key: "reports", source_subscription: subscription.id, granted_by_event: expect.stringMatching(/^evt_/) }],
      livemode: false,
    });
    const [granted] = await entitlementEvents();
    expect((await get(`/customers/${customer.id}/entitlements`)).items[0].granted_by_event).toBe(granted.id);
    expect(granted).toMatchObject({
      correlation_id: "ent-create",
      aggregate_type: "customer_entitlements",
      data: { items: [{ lookup_key: "reports" }] },
      previous_data: { items: [] },
    });
    // Same transaction: the subscription's event and the entitlements' are adjacent in the account's log.
    const subscriptionEvent = (await get(`/events?aggregate_id=${subscription.id}`)).items[0];
    expect(subscriptionEvent.correlation_id).toBe("ent-create");

    await post(`/subscriptions/${subscription.id}/pause`);
    expect(await entitled()).toEqual([]);
    await post(`/subscriptions/${subscription.id}/resume`);
    expect(await entitled()).toEqual(["reports"]);
    // A change that keeps them (metadata) announces nothing.
    await post(`/subscriptions/${subscription.id}`, { metadata: { a: "b" } });
    await post(`/subscriptions/${subscription.id}/cancel`);
    expect(await entitled()).toEqual([]);
    const events = await entitlementEvents();
    expect(events.map((event) => event.data.items.length)).toEqual([1, 0, 1, 0]);
    expect(events.every((event) => event.actor_type === "api_key")).toBe(true);
  });

  it("attaching a feature entitles current subscribers in the same transaction; detaching takes it away", async () => {
    const { client, account, post, price, product, customer, entitled, entitlementEvents } = await sandbox();
    await post("/subscriptions", { customer: customer.id, items: [{ price: price.id }] });
    const beta = await post("/features", { lookup_key: "beta", name: "Beta" });
    await post(`/products/${product.id}/features`, { feature: beta.id });
    expect(await entitled()).toEqual(["beta", "reports"]);
    const attached = (await entitlementEvents()).at(-1);
    expect(attached).toMatchObject({ data: { items: [{ lookup_key: "beta" }, { lookup_key: "reports" }] } });
    const detached = await client.delete(`/${account}/products/${product.id}/features/${beta.id}`);
    expect(detached.status, detached.text).toBe(200);
    expect(await entitled()).toEqual(["reports"]);
    expect((await entitlementEvents()).map((event) => event.data.items.length)).toEqual([1, 2, 1]);
  });

  it("past_due keeps them for the account's grace, then the clock's tick takes them away (actor system)", async () => {
    const { post, get, price, customer, entitled, entitlementEvents, advance } = await sandbox();
    expect(await post("/account-settings", { entitlement_past_due_grace_days: 2 })).toMatchObject({ entitlement_past_due_grace_days: 2 });
    const sub = await post("/subscriptions", { customer: customer.id, items: [{ price: price.id }], trial_period_days: 7, default_payment_method: "pm_sandbox_declined" });
    const trialEnd = new Date(sub.trial_end).getTime();
    await advance(new Date(trialEnd + DAY));
    expect((await get(`/subscriptions/${sub.id}`)).status).toBe("past_due");
    expect(await entitled()).toEqual(["reports"]);
    await advance(new Date(trialEnd + 2 * DAY + 60_000));
    expect((await get(`/subscriptions/${sub.id}`)).status).toBe("past_due");
    expect(await entitled()).toEqual([]);
    const last = (await entitlementEvents()).at(-1);
    expect(last).toMatchObject({ actor_type: "system", data: { items: [] }, previous_data: { items: [{ lookup_key: "reports" }] } });
  });

  it("a publishable token reads its own account's entitlements only; another account's customer is 404", async () => {
    const { merchant, post, price, customer } = await sandbox();
    await post("/subscriptions", { customer: customer.id, items: [{ price: price.id }] });
    const { token } = await (await import("@/lib/auth/tokens")).issueToken(await getDb(), {
      accountId: merchant.sandboxAccountId,
      kind: "publishable",
      name: "front end",
    });
    const front = api(token);
    const own = await front.get(`/${merchant.sandboxAccountId}/customers/${customer.id}/entitlements`);
    expect(own.status, own.text).toBe(200);
    expect(own.body.items).toHaveLength(1);
    // Not the features themselves (secret only), and not another account.
    expectProblem(await front.get(`/${merchant.sandboxAccountId}/features`), 403);
    const other = await newMerchant();
    expectProblem(await front.get(`/${other.accountId}/customers/${customer.id}/entitlements`), 403);
    expectProblem(await api(other.publishable.token).get(`/${other.accountId}/customers/${customer.id}/entitlements`), 404);
    expectProblem(await api(other.publishable.token).get(`/${merchant.sandboxAccountId}/customers/${customer.id}/entitlements`), 403);
  });
});
