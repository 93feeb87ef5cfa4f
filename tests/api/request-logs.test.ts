import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dropExpiredPartitions, ensurePartitions, partitionDays } from "@/lib/request-recorder/partitions";
import { api, apiBaseUrl, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { signedInUser } from "../helpers/session";
import { eventually, refusedUrl } from "../helpers/receiver";

/*
 * The request log (lib/request-logs): every /api request is recorded off the request's path, in
 * batches (REQUEST_LOG_FLUSH_MS, 1 s by default), so each read here waits until its row is written.
 */
const sql = postgres(inject("databaseUrl"), { max: 2, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

/** The API root's path (`/api`): stored paths start with it. */
const ROOT = new URL(apiBaseUrl()).pathname.replace(/\/$/, "");

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

/** The account's requests matching `query`, once `accept` holds (the writer's batch has landed). */
async function logsWhere(m: Merchant, query: string, accept: (items: Json[]) => boolean = (items) => items.length > 0): Promise<Json[]> {
  return eventually(async () => {
    const response = await m.client.get(`/${m.accountId}/request-logs?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items as Json[];
  }, accept);
}

async function logOf(m: Merchant, requestId: string): Promise<Json> {
  await logsWhere(m, `request_id=${requestId}`);
  const response = await m.client.get(`/${m.accountId}/request-logs/${requestId}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe("request log", () => {
  it("records a request with its token, operation, status and timing, and lists the events it caused", async () => {
    const created = await merchant.client.post(
      `/${merchant.accountId}/customers`,
      { email: "logged@example.com" },
      { headers: { "Idempotency-Key": "log-create-1", "User-Agent": "request-log-test/1.0" } },
    );
    expect(created.status, created.text).toBe(201);
    const requestId = created.headers.get("x-request-id")!;

    const log = await logOf(merchant, requestId);
    expect(log).toMatchObject({
      id: requestId,
      object: "request_log",
      livemode: true,
      method: "POST",
      path: `${ROOT}/${merchant.accountId}/customers`,
      query: null,
      operation_id: "createCustomer",
      status: 201,
      error_code: null,
      token_id: merchant.secret.id,
      user_id: null,
      user_agent: "request-log-test/1.0",
      idempotency_key: "log-create-1",
      idempotent_replayed: false,
      request_body: null,
      response_body: null,
    });
    expect(log.duration_ms).toBeGreaterThanOrEqual(0);
    expect(log.request_headers).toMatchObject({ "idempotency-key": "log-create-1", "content-type": "application/json" });
    expect(log.events).toHaveLength(1);
    expect(log.events[0]).toMatchObject({ type: "customer.created", aggregate_id: created.body.id, request_id: requestId });

    // The replay is its own request, marked replayed.
    const replay = await merchant.client.post(
      `/${merchant.accountId}/customers`,
      { email: "logged@example.com" },
      { headers: { "Idempotency-Key": "log-create-1" } },
    );
    const [replayed] = await logsWhere(merchant, `request_id=${replay.headers.get("x-request-id")}`);
    expect(replayed).toMatchObject({ idempotent_replayed: true, status: 201 });
    const byKey = await logsWhere(merchant, "idempotency_key=log-create-1", (items) => items.length === 2);
    expect(byKey.map((item) => item.id)).toEqual([replay.headers.get("x-request-id"), requestId]);
  });

  it("links an error body's request_id to its row, with the redacted bodies", async () => {
    const refused = await merchant.client.post(`/${merchant.accountId}/customers`, { email: 42, name: "Bad" });
    expect([400, 422]).toContain(refused.status);
    expectProblem(refused, refused.status);
    const log = await logOf(merchant, refused.body.request_id);
    expect(log).toMatchObject({ status: refused.status, operation_id: "createCustomer", error_code: expect.any(String) });
    expect(JSON.parse(log.response_body)).toEqual(refused.body);
    // The body as sent, its email field censored as the logs censor it.
    expect(JSON.parse(log.request_body)).toEqual({ email: "[redacted]", name: "Bad" });

    const missing = await merchant.client.get(`/${merchant.accountId}/customers/cus_prod_nope`);
    expectProblem(missing, 404);
    expect(await logOf(merchant, missing.body.request_id)).toMatchObject({ status: 404, error_code: "not_found", request_body: null });
  });

  it("never stores a secret seeded into bodies, headers or query strings", async () => {
    const fresh = await newMerchant();
    const endpoint = await fresh.client.post(`/${fresh.accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const secrets = [
      fresh.secret.token,
      fresh.publishable.token,
      endpoint.body.secret as string,
      "4242424242424242",
      "4000 0566 5566 5556",
      "hunter2-password-value",
      "owner-seeded@example.com",
    ];
    const [token, publishable, signingSecret, card, spacedCard, password, email] = secrets as [string, string, string, string, string, string, string];
    const hostileHeaders = {
      "User-Agent": `agent ${token}`,
      "X-Correlation-Id": `corr-${signingSecret.slice(0, 40)}`,
      "Idempotency-Key": `key-${publishable}`,
    };
    const requests = [
      // Bodies: named fields (password, token, secret, email, card) and secret values in free text.
      fresh.client.post(`/${fresh.accountId}/customers`, {
        email,
        name: `card ${card} and ${spacedCard}`,
        password,
        token,
        metadata: { note: `secret ${signingSecret}`, nested: { client_secret: "cs-value-1", card_number: 4242424242424242 } },
      }, { headers: hostileHeaders }),
      // Not JSON at all: the text's secret values are censored.
      fresh.client.post(`/${fresh.accountId}/customers`, undefined, {
        rawBody: `{"broken": "${token} ${card}`,
        headers: { "Content-Type": "application/json", ...hostileHeaders },
      }),
      // Query strings: a redacted name and secret values under other names.
      fresh.client.get(`/${fresh.accountId}/customers?limit=abc&password=${password}&token=${encodeURIComponent(token)}&q=${encodeURIComponent(signingSecret)}&email=${encodeURIComponent(email)}&n=${card}`, {
        headers: hostileHeaders,
      }),
      // A publishable token where a secret one is needed (403), and a wrong token (401).
      api(fresh.publishable.token).get(`/${fresh.accountId}/customers?token=${encodeURIComponent(token)}`),
      api(`${token}x`).get(`/customers?password=${password}`),
    ];
    const answers = await Promise.all(requests);
    for (const answer of answers) expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    const ids = answers.map((answer) => answer.headers.get("x-request-id")!);
    const rows = await eventually(
      () => sql`select * from request_logs where id = any(${ids})`,
      (found) => found.length === ids.length,
    );
    const stored = JSON.stringify(rows);
    for (const secret of [...secrets, signingSecret.slice("whsec_".length, 40), "cs-value-1"]) {
      expect(stored, `stored rows contain ${secret}`).not.toContain(secret);
    }
    // No token or signing secret of anyone (an error's help text may name the prefixes: `st_prod_…`).
    expect(stored).not.toMatch(/(st|pt)_prod_[0-9a-z]{6}|whsec_[A-Za-z0-9+/]{6}/);
    // What was kept is still useful: the redacted query names its fields, the body keeps its other fields.
    const get = rows.find((row) => row.id === ids[2])!;
    expect(get.query).toContain("password=%5Bredacted%5D");
    expect(get.query).toContain("limit=abc");
    const post = rows.find((row) => row.id === ids[0])!;
    expect(JSON.parse(post.request_body as string)).toMatchObject({ password: "[redacted]", token: "[redacted]", email: "[redacted]", name: "card [redacted] and [redacted]" });
    expect(post.request_headers).toMatchObject({ "user-agent": "agent [redacted]", "idempotency-key": "key-[redacted]" });
    // The account's own 401 is not the account's: a wrong token names no account.
    expect(rows.find((row) => row.id === ids[4])).toMatchObject({ account_id: null, status: 401 });
  });

  it("filters by status, class, method, operation, path prefix, token and time, and pages with cursors", async () => {
    const fresh = await newMerchant();
    const account = fresh.accountId;
    const a = await fresh.client.post(`/${account}/customers`, { email: "a@example.com" });
    const b = await fresh.client.post(`/customers`, { email: "b@example.com" });
    const notFound = await fresh.client.get(`/${account}/customers/cus_prod_missing`);
    const listed = await api(fresh.sandboxSecret.token).get(`/customers`);
    const products = await fresh.client.get(`/${account}/products`);
    const id = (response: { headers: Headers }) => response.headers.get("x-request-id")!;
    const all = await logsWhere(fresh, "limit=100", (items) => items.length >= 4);
    expect(all.map((item) => item.id)).toEqual([id(products), id(notFound), id(b), id(a)]);
    // The sandbox token's request is the sandbox account's.
    expect(all.map((item) => item.id)).not.toContain(id(listed));

    const cases: [string, string[]][] = [
      ["status=201", [id(b), id(a)]],
      ["status=2xx", [id(products), id(b), id(a)]],
      ["status=4xx", [id(notFound)]],
      ["status=404", [id(notFound)]],
      ["status=5xx", []],
      ["method=POST", [id(b), id(a)]],
      ["method=GET", [id(products), id(notFound)]],
      ["operation=createCustomer", [id(b), id(a)]],
      ["operation=getCustomer", [id(notFound)]],
      [`path=${encodeURIComponent(`${ROOT}/${account}/customers`)}`, [id(notFound), id(a)]],
      [`path=${encodeURIComponent(`${ROOT}/customers`)}`, [id(b)]],
      [`token=${fresh.secret.id}`, [id(products), id(notFound), id(b), id(a)]],
      [`token=${fresh.publishable.id}`, []],
      [`request_id=${id(b)}`, [id(b)]],
      [`created[gte]=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, []],
      [`created[lt]=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&method=POST`, [id(b), id(a)]],
      ["limit=2", [id(products), id(notFound)]],
      [`limit=2&starting_after=${id(notFound)}`, [id(b), id(a)]],
      [`ending_before=${id(a)}&limit=2`, [id(notFound), id(b)]],
      [`ending_before=${id(notFound)}`, [id(products)]],
    ];
    for (const [query, expected] of cases) {
      const response = await fresh.client.get(`/${account}/request-logs?${query}`);
      expect(response.status, `${query}: ${response.text}`).toBe(200);
      expect(response.body.items.map((item: Json) => item.id), query).toEqual(expected);
    }
    const firstPage = await fresh.client.get(`/${account}/request-logs?limit=2`);
    expect(firstPage.body.has_more).toBe(true);
    const lastPage = await fresh.client.get(`/${account}/request-logs?limit=2&starting_after=${id(notFound)}`);
    expect(lastPage.body.has_more).toBe(false);

    const refusals: [string, RegExp][] = [
      ["status=6xx", /status/],
      ["status=abc", /status/],
      ["method=TRACE", /method/],
      ["path=customers", /path/],
      ["starting_after=cus_prod_x", /starting_after/],
      [`starting_after=${id(a)}&ending_before=${id(b)}`, /either/],
      ["total=1", /total/],
    ];
    for (const [query, detail] of refusals) {
      const response = await fresh.client.get(`/${account}/request-logs?${query}`);
      expectProblem(response, 400);
      expect(response.text, query).toMatch(detail);
    }
  });

  it("tells the dashboard's requests from API clients' by source, and filters by it", async () => {
    const { live, request } = await signedInUser();
    const token = await request("POST", `/${live.id}/api-tokens`, { body: { name: "source test", kind: "secret" } });
    expect(token.status, token.text).toBe(201);
    const client = api(token.body.token as string);
    const byApi = await client.get("/customers?limit=1");
    expect(byApi.status).toBe(200);
    const byDashboard = await request("GET", `/${live.id}/customers?limit=2`);
    expect(byDashboard.status).toBe(200);
    const apiId = byApi.headers.get("x-request-id")!;
    const dashboardId = byDashboard.headers.get("x-request-id")!;

    const list = async (query: string) => {
      const response = await client.get(`/request-logs?${query}`);
      expect(response.status, response.text).toBe(200);
      return (response.body.items as Json[]).map((item) => [item.id, item.source]);
    };
    // Both rows written (the writer batches), then every filter reads what is there.
    const all = await eventually(() => list("operation=listCustomers"), (pairs) => pairs.length >= 2);
    expect(all).toEqual(expect.arrayContaining([[apiId, "api"], [dashboardId, "dashboard"]]));
    expect(await list("operation=listCustomers&source=dashboard")).toEqual([[dashboardId, "dashboard"]]);
    expect(await list("operation=listCustomers&source=api")).toEqual([[apiId, "api"]]);
    expectProblem(await client.get("/request-logs?source=browser"), 400, /api, dashboard/);
  });

  it("shows an account only its own requests, to secret tokens", async () => {
    const other = await newMerchant();
    const mine = await merchant.client.get(`/${merchant.accountId}/customers?limit=1`);
    const requestId = mine.headers.get("x-request-id")!;
    await logsWhere(merchant, `request_id=${requestId}`);
    expectProblem(await other.client.get(`/request-logs/${requestId}`), 404);
    expect((await other.client.get(`/request-logs?request_id=${requestId}`)).body.items).toEqual([]);
    expectProblem(await other.client.get(`/${merchant.accountId}/request-logs`), 403);
    expectProblem(await api(merchant.publishable.token).get(`/request-logs`), 403);
    expectProblem(await api().get(`/request-logs`), 401);
  });
});

describe("request log partitions", () => {
  it("drops whole days past the retention and keeps the rest", async () => {
    const db = drizzle(sql);
    // Days long past, which the app's own maintenance has not made: this test's alone.
    await ensurePartitions(db, ["2001-03-01", "2001-03-02", "2001-03-03"]);
    expect(await partitionDays(db)).toEqual(expect.arrayContaining(["2001-03-01", "2001-03-02", "2001-03-03"]));
    const inserted = await sql`insert into request_logs (id, created, method, path, status, status_class, duration_ms)
      values ('req_prod_old1', '2001-03-01T12:00:00Z', 'GET', '/x', 200, 2, 1),
             ('req_prod_old2', '2001-03-03T12:00:00Z', 'GET', '/x', 200, 2, 1) returning id`;
    expect(inserted).toHaveLength(2);

    // On 2001-03-04T10:00Z with 2 days kept, 2001-03-02 and later stay (2001-03-02 is partly within them).
    const dropped = await dropExpiredPartitions(db, new Date("2001-03-04T10:00:00Z"), 2);
    expect(dropped).toEqual(["2001-03-01"]);
    const days = await partitionDays(db);
    expect(days).not.toContain("2001-03-01");
    expect(days).toEqual(expect.arrayContaining(["2001-03-02", "2001-03-03"]));
    expect((await sql`select id from request_logs where id like 'req_prod_old%'`).map((row) => row.id)).toEqual(["req_prod_old2"]);

    // Today's partition exists (the app made it when it wrote its first batch) and is never dropped by a 1-day retention.
    const today = new Date().toISOString().slice(0, 10);
    expect(await dropExpiredPartitions(db, new Date(), 1)).not.toContain(today);
    expect(await partitionDays(db)).toContain(today);
  });
});
