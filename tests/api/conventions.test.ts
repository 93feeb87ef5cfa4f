import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl } from "../helpers/api";
import { TOKEN_CACHE_TTL_MS } from "@/lib/auth/tokens";
import { newMerchant, revokeToken, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
let other: Merchant;

beforeAll(async () => {
  merchant = await newMerchant();
  other = await newMerchant();
});

describe("authentication", () => {
  const cases: { name: string; authorization: () => string | undefined; detail: RegExp }[] = [
    { name: "no Authorization header", authorization: () => undefined, detail: /Missing API token/ },
    { name: "another scheme", authorization: () => `Basic ${btoa("a:b")}`, detail: /Bearer/ },
    { name: "a malformed token", authorization: () => "Bearer st_prod_short", detail: /malformed/ },
    { name: "an unknown token", authorization: () => `Bearer st_prod_${"0".repeat(32)}`, detail: /not valid/ },
    { name: "a staging token on prod", authorization: () => `Bearer st_stg_${"0".repeat(32)}`, detail: /'stg' environment/ },
  ];
  for (const testCase of cases) {
    it(`answers 401 for ${testCase.name}`, async () => {
      const authorization = testCase.authorization();
      const response = await api().get("/customers", {
        headers: authorization ? { Authorization: authorization } : {},
      });
      expectProblem(response, 401, testCase.detail);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });
  }

  it("answers 401 for a token revoked elsewhere once the look-up cache's bound has passed", async () => {
    const fresh = await newMerchant();
    expect((await fresh.client.get("/customers")).status).toBe(200);
    // Written by this process, not the server: the server's cached look-up lasts at most the bound.
    await revokeToken(fresh.secret.id);
    await new Promise((resolve) => setTimeout(resolve, TOKEN_CACHE_TTL_MS));
    expectProblem(await fresh.client.get("/customers"), 401, /revoked/);
  });
});

describe("authorization", () => {
  it("answers 403 when a token is used on another account's path", async () => {
    expectProblem(await merchant.client.get(`/${other.accountId}/events`), 403, /cannot access account/);
    expectProblem(await merchant.client.get(`/${merchant.sandboxAccountId}/customers`), 403);
    expectProblem(await api(merchant.sandboxSecret.token).get(`/${merchant.accountId}/events`), 403);
  });

  it("lets publishable tokens call only their allow-list", async () => {
    const browser = api(merchant.publishable.token);
    expect((await browser.get(`/${merchant.accountId}/billing-status`)).status).toBe(200);
    expectProblem(await browser.get("/customers"), 403, /Publishable tokens/);
    expectProblem(await browser.post("/customers", { email: "a@example.com" }), 403);
    expectProblem(await browser.get(`/${merchant.accountId}/events`), 403);
  });
});

describe("request ids and correlation ids", () => {
  it("puts a req_ id on every response, success or error", async () => {
    const ok = await merchant.client.get("/customers");
    const failed = await api().get("/customers");
    const unknown = await api().offContract.get("/no-such-thing");
    for (const response of [ok, failed, unknown]) {
      expect(response.headers.get("x-request-id")).toMatch(/^req_prod_[0-9a-z]{29}$/);
    }
    expect(ok.headers.get("x-request-id")).not.toBe(failed.headers.get("x-request-id"));
  });

  it("stamps X-Correlation-Id on events, else the request id", async () => {
    const correlated = await merchant.client.post(
      "/customers",
      { email: "corr@example.com" },
      { headers: { "X-Correlation-Id": "checkout-flow-42" } },
    );
    const plain = await merchant.client.post("/customers", { email: "plain@example.com" });
    const events = await merchant.client.get(`/${merchant.accountId}/events?event_type=customer.created`);
    const byCustomer = new Map<string, { correlation_id: string }>(
      events.body.items.map((event: { aggregate_id: string; correlation_id: string }) => [event.aggregate_id, event]),
    );
    expect(byCustomer.get(correlated.body.id)?.correlation_id).toBe("checkout-flow-42");
    expect(byCustomer.get(plain.body.id)?.correlation_id).toBe(plain.headers.get("x-request-id"));
  });

  it("refuses an unusable X-Correlation-Id with 400", async () => {
    const response = await merchant.client.post(
      "/customers",
      { email: "x@example.com" },
      { headers: { "X-Correlation-Id": "a".repeat(201) } },
    );
    expectProblem(response, 400, /X-Correlation-Id/);
  });
});

describe("request bodies", () => {
  it("answers 400 for malformed JSON", async () => {
    const response = await merchant.client.request("POST", "/customers", {
      rawBody: '{"email": ',
      headers: { "Content-Type": "application/json" },
    });
    expectProblem(response, 400, /not valid JSON/);
  });

  it("answers 400 for a body that is not an object", async () => {
    const response = await merchant.client.request("POST", "/customers", {
      rawBody: '["a@example.com"]',
      headers: { "Content-Type": "application/json" },
    });
    expectProblem(response, 400, /JSON object/);
  });

  it("answers 415 for another content type", async () => {
    const response = await merchant.client.request("POST", "/customers", {
      rawBody: "email=a@example.com",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expectProblem(response, 415, /application\/json/);
  });

  it("answers 413 for a body over 1 MiB", async () => {
    const response = await merchant.client.post("/customers", { email: "big@example.com", name: "x".repeat(1_100_000) });
    expectProblem(response, 413);
  });

  it("answers 422 with an errors list for invalid fields, and 400 naming a missing one", async () => {
    const invalid = await merchant.client.post("/customers", { email: "not-an-email", nickname: "x" });
    expectProblem(invalid, 422);
    expect(invalid.body.errors).toEqual(
      expect.arrayContaining([
        { field: "email", message: expect.any(String) },
        { field: "nickname", message: "Unknown field." },
      ]),
    );
    const missing = await merchant.client.post("/customers", { name: "No Email" });
    expectProblem(missing, 400, /email/);
    expect(missing.body.errors).toEqual([{ field: "email", message: "Required." }]);
  });

  it("changes nothing when it refuses a request", async () => {
    const fresh = await newMerchant();
    await fresh.client.post("/customers", { email: "bad" });
    await fresh.client.post("/customers", { name: "no email" });
    await fresh.client.request("POST", "/customers", { rawBody: "{", headers: { "Content-Type": "application/json" } });
    expect((await fresh.client.get("/customers")).body.total).toBe(0);
    expect((await fresh.client.get(`/${fresh.accountId}/events`)).body.total).toBe(0);
  });
});

describe("pagination", () => {
  const invalid = ["limit=0", "limit=101", "limit=-1", "limit=1.5", "limit=abc", "limit=", "offset=-1", "offset=2.5", "offset=x"];
  for (const query of invalid) {
    it(`answers 400 for ${query}`, async () => {
      const response = await merchant.client.get(`/customers?${query}`);
      expectProblem(response, 400, /(limit|offset) must be an integer/);
      expect(response.body.errors[0].field).toBe(query.split("=")[0]);
    });
  }

  it("answers 400 for an unknown query parameter", async () => {
    expectProblem(await merchant.client.get(`/${merchant.accountId}/events?type=customer.created`), 400, /type/);
  });

  it("defaults to 50 items, allows 100, and reports has_more from offset + items", async () => {
    const fresh = await newMerchant();
    await Promise.all(
      Array.from({ length: 51 }, (_, i) => fresh.client.post("/customers", { email: `c${i}@example.com` })),
    );
    const first = await fresh.client.get("/customers");
    expect(first.body.items).toHaveLength(50);
    expect(first.body).toMatchObject({ total: 51, has_more: true });
    const rest = await fresh.client.get("/customers?offset=50");
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body).toMatchObject({ total: 51, has_more: false });
    const all = await fresh.client.get("/customers?limit=100");
    expect(all.body.items).toHaveLength(51);
    expect(all.body.has_more).toBe(false);
    const past = await fresh.client.get("/customers?offset=500");
    expect(past.body).toEqual({ items: [], total: 51, has_more: false });
    expect(Object.keys(first.body).sort()).toEqual(["has_more", "items", "total"]);
  });
});

describe("routing", () => {
  it("answers unknown /api paths with a 404 problem, never HTML", async () => {
    for (const path of ["/nope", "/v2/customers", `/${merchant.accountId}/nope`, `/${merchant.accountId}/events/x/y/z`]) {
      const response = await merchant.client.offContract.get(path);
      expectProblem(response, 404);
      expect(response.body.instance).toBe(`/api${path}`);
    }
    expectProblem(await api().offContract.request("POST", "/nope"), 404);
  });

  it("answers a wrong method with a 405 problem and Allow", async () => {
    const response = await merchant.client.offContract.request("PUT", "/customers");
    expectProblem(response, 405);
    expect(response.headers.get("allow")).toBe("GET, POST, OPTIONS");
    expectProblem(await merchant.client.offContract.delete(`/${merchant.accountId}/events`), 405);
  });

  it("answers CORS preflights so publishable tokens work from browsers", async () => {
    const response = await fetch(`${apiBaseUrl()}/${merchant.accountId}/billing-status`, {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "GET" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
  });
});
