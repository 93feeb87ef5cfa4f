import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, apiBaseUrl, type Client, type Json, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { startApp, type RunningApp } from "../helpers/server";

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** The default deprecation date (lib/config.ts) and the spec's minimum notice. */
const DEPRECATED_AT = Date.UTC(2026, 10, 22);
const SIX_MONTHS_LATER = Date.UTC(2027, 4, 22);

let client: Client;
let token: string;
let account: string;
let prices: { basic: string; pro: string; addon: string };

beforeAll(async () => {
  const merchant = await newMerchant();
  token = merchant.sandboxSecret.token;
  client = api(token);
  account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id;
  const price = async (amount: number) =>
    (await client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } })).body
      .id as string;
  prices = { basic: await price(1000), pro: await price(3000), addon: await price(500) };
});

async function subscribe(items: Json[]): Promise<Json> {
  const customer = (await client.post(`/${account}/customers`, { email: "plan@example.com" })).body.id;
  const response = await client.post(`/${account}/subscriptions`, { customer, items });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

function expectDeprecationHeaders(headers: Headers): void {
  expect(headers.get("deprecation")).toBe("true");
  const sunset = headers.get("sunset");
  expect(sunset).toMatch(HTTP_DATE);
  expect(Date.parse(sunset!)).toBeGreaterThanOrEqual(SIX_MONTHS_LATER);
  expect(Date.parse(sunset!) - DEPRECATED_AT).toBeGreaterThanOrEqual(181 * 86_400_000);
  expect(headers.get("link")).toBe('</reference#tag/subscription-change-requests>; rel="successor-version"');
}

describe("the deprecated change-plan operation, before its sunset", () => {
  it("replaces the items with one price through an applied change request, announcing its deprecation", async () => {
    const sub = await subscribe([{ price: prices.basic }, { price: prices.addon }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const response = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, {
      price: prices.pro,
      quantity: 2,
      payment_method: "pm_sandbox_succeeds",
    });
    expect(response.status, response.text).toBe(200);
    expectDeprecationHeaders(response.headers);
    expect(response.body).toMatchObject({ id: sub.id, object: "subscription", items: [{ id: a, price: prices.pro, quantity: 2 }] });

    const requests = (await client.get(`/${account}/subscriptions/${sub.id}/change-requests`)).body;
    expect(requests.items).toEqual([
      expect.objectContaining({
        status: "applied",
        metadata: { source: "change-plan" },
        steps: [
          { type: "switch_price", item: a, price: prices.pro, quantity: null, state: "applied" },
          { type: "set_quantity", item: a, price: null, quantity: 2, state: "applied" },
          { type: "remove_item", item: b, price: null, quantity: null, state: "applied" },
        ],
        invoice: expect.stringMatching(/^in_prod_/),
      }),
    ]);
    const events = (await client.get(`/${account}/events?aggregate_id=${sub.id}`)).body.items;
    expect(events.filter((e: Json) => e.type === "customer.subscription.updated")).toHaveLength(3);

    // The unscoped path works too; the same plan again changes nothing and creates no request.
    const again = await client.post(`/subscriptions/${sub.id}/change-plan`, { price: prices.pro, quantity: 2 });
    expect(again.status, again.text).toBe(200);
    expectDeprecationHeaders(again.headers);
    expect(again.body).toEqual(response.body);
    expect((await client.get(`/${account}/subscriptions/${sub.id}/change-requests`)).body.total).toBe(1);
  });

  it("names its own body fields in errors, still with the deprecation headers", async () => {
    const sub = await subscribe([{ price: prices.basic }]);
    const missing = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, {});
    expectProblem(missing, 400, /price/);
    expectDeprecationHeaders(missing.headers);
    const unknown = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, { price: "price_prod_nope" });
    expectProblem(unknown, 422);
    expect(unknown.body.errors).toEqual([{ field: "price", message: expect.stringMatching(/No such price/) }]);
    const noMethod = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, { price: prices.pro });
    expectProblem(noMethod, 400, /payment_method/);
    // A downgrade is due 0: no method needed.
    const down = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, { price: prices.addon });
    expect(down.status, down.text).toBe(200);
    expect(down.body.items).toEqual([{ id: sub.items[0].id, price: prices.addon, quantity: 1 }]);
  });

  it("is marked deprecated in the OpenAPI document, with its 410", async () => {
    const document = await (await fetch(`${apiBaseUrl()}/openapi.json`)).json();
    for (const path of ["/{account_id}/subscriptions/{subscription_id}/change-plan", "/subscriptions/{subscription_id}/change-plan"]) {
      const operation = document.paths[path].post;
      expect(operation.deprecated).toBe(true);
      expect(Object.keys(operation.responses)).toContain("410");
    }
    const successor = document.paths["/{account_id}/subscriptions/{subscription_id}/change-requests"].post;
    expect(successor.deprecated).toBeUndefined();
    expect(successor.tags).toEqual(["Subscription change requests"]);
  });
});

describe("the deprecation window's configuration", () => {
  it("refuses to start with a sunset less than 6 months after the deprecation date", async () => {
    const start = startApp({
      DATABASE_URL: inject("databaseUrl"),
      CHANGE_PLAN_DEPRECATED_AT: "2025-01-01",
      CHANGE_PLAN_SUNSET_AT: "2025-06-30",
    });
    await expect(start).rejects.toThrow(/exited during start[\s\S]*CHANGE_PLAN_SUNSET_AT .* must be at least 6 months after CHANGE_PLAN_DEPRECATED_AT/);
  }, 90_000);
});

describe("the deprecated change-plan operation after its sunset", () => {
  let retired: RunningApp;

  beforeAll(async () => {
    // A second server on the same database, configured as if the sunset had passed.
    retired = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      CHANGE_PLAN_DEPRECATED_AT: "2025-01-01",
      CHANGE_PLAN_SUNSET_AT: "2025-07-01",
    });
  }, 90_000);

  afterAll(async () => {
    await retired?.stop();
  });

  it("answers 410 naming the replacement, changing nothing", async () => {
    const sub = await subscribe([{ price: prices.basic }]);
    const retiredClient = api(token, apiRoot(retired.baseUrl));
    const response = await retiredClient.post(`/${account}/subscriptions/${sub.id}/change-plan`, { price: prices.pro, payment_method: "pm_sandbox_succeeds" });
    expect(response.status).toBe(410);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("deprecation")).toBeNull();
    expect(response.headers.get("link")).toContain('rel="successor-version"');
    const problem = response.body;
    expect(problem).toMatchObject({
      type: "about:blank",
      title: "Gone",
      status: 410,
      instance: `/api/${account}/subscriptions/${sub.id}/change-plan`,
      request_id: expect.stringMatching(/^req_prod_/),
      replacement: expect.stringContaining("/change-requests"),
    });
    expect(problem.detail).toMatch(/retired on Tue, 01 Jul 2025 00:00:00 GMT.*change-requests/);

    // Nothing changed: the subscription, its events, no change request.
    expect((await client.get(`/${account}/subscriptions/${sub.id}`)).body).toEqual(sub);
    expect((await client.get(`/${account}/subscriptions/${sub.id}/change-requests`)).body.total).toBe(0);
    const events = (await client.get(`/${account}/events?aggregate_id=${sub.id}`)).body.items;
    expect(events.map((e: Json) => e.type)).toEqual(["customer.subscription.created"]);

    // The replacement works on the same server.
    const created = await retiredClient.post(`/${account}/subscriptions/${sub.id}/change-requests`, {
      steps: [{ type: "switch_price", item: sub.items[0].id, price: prices.pro }],
    });
    expect(created.status).toBe(201);
  });
});
