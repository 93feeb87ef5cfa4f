import { describe, expect, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { expectProblem } from "../helpers/problem";
import { answered, appBehindProxyForSuite } from "../helpers/proxied-app";
import { eventually } from "../helpers/receiver";

/**
 * The app's database behind a proxy this test controls: cut it, and the API answers fast 503s
 * with Retry-After (readiness too) without crashing; restore it, and the same process serves again.
 */
describe("without its database", () => {
  const suite = appBehindProxyForSuite();

  it("answers 503 with Retry-After at once, and recovers without a restart", { timeout: 90_000 }, async () => {
    const { proxy, app, merchant } = suite;
    const client = api(merchant.secret.token, apiRoot(app.baseUrl));
    const ready = api(undefined, apiRoot(app.baseUrl));
    expect((await ready.get("/health/ready")).body).toEqual({ status: "ready", database: "ok" });
    expect((await client.get("/customers")).status).toBe(200);

    await proxy.cut();
    for (const call of [
      () => client.get("/customers"),
      () => client.post("/customers", { email: "away@example.com" }),
      () => client.post("/customers", { email: "away@example.com" }, { headers: { "Idempotency-Key": "while-away" } }),
      () => ready.get("/health/ready"),
    ]) {
      // Bounded by the connect timeout (5 s), never the hangs of before: answered, not how fast.
      const response = await answered(call);
      expectProblem(response, 503, /database is unavailable/);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(response.body).toMatchObject({ error_code: "service_unavailable", retryable: true });
    }

    await proxy.restore();
    await eventually(() => ready.get("/health/ready"), (response) => response.status === 200, 30_000);
    const created = await client.post("/customers", { email: "back@example.com" }, { headers: { "Idempotency-Key": "while-away" } });
    expect(created.status).toBe(201);
    expect((await client.get("/customers")).body.total).toBe(1);

    expect(app.output()).not.toMatch(/uncaught|unhandledRejection|TypeError/i);
    // Never the SQL parameters of a failed query in the logs (the merchant's emails, token hashes).
    expect(app.output()).not.toContain("away@example.com");
    expect(app.output()).not.toMatch(/params:/);
  });
});

/**
 * The network drops the database's packets without closing anything (no FIN, no RST): pooled
 * sockets go silent. postgres.js alone would wait on them forever; the app answers 503 within
 * seconds, gives the dead sockets up, and serves again once new connections get through, while
 * the old ones stay dead.
 */
describe("with its database blackholed", () => {
  // TLS if the server offers it: the app's sockets negotiate it themselves (db/watchdog.ts); the
  // test server declines, so this exercises the negotiation and the fall-back to plain. A small
  // pool, so that concurrent requests also queue for a connection. Connections that never answer
  // are given up after the URL's connect_timeout: 2 s, not the default 5, for a shorter wait.
  const suite = appBehindProxyForSuite({ sslmode: "prefer", connect_timeout: "2" }, { DATABASE_POOL_SIZE: "2" });

  it("answers 503 within seconds on silent sockets, and recovers without a restart", { timeout: 120_000 }, async () => {
    const { proxy, app, merchant } = suite;
    const client = api(merchant.secret.token, apiRoot(app.baseUrl));
    const ready = api(undefined, apiRoot(app.baseUrl));
    // Warm the pool: both connections open and idle when the network goes silent.
    await Promise.all([client.get("/customers"), client.get("/customers"), ready.get("/health/ready")]);
    expect((await client.get("/customers")).status).toBe(200);

    proxy.blackhole();
    // One at a time: on a pooled socket gone silent, then on new connections that never answer.
    for (const call of [
      () => client.get("/customers"),
      () => client.post("/customers", { email: "silent@example.com" }),
      () => client.post("/customers", { email: "silent@example.com" }, { headers: { "Idempotency-Key": "while-silent" } }),
      () => client.get("/customers"),
    ]) {
      // Answered (not left on the silent socket for ever), however loaded the machine.
      const response = await answered(call);
      expectProblem(response, 503, /database is unavailable/);
      expect(response.headers.get("retry-after")).toBe("5");
    }
    // Eight at once on a pool of two: the queued ones give up too.
    const burst = await Promise.all(Array.from({ length: 8 }, () => answered(() => client.get("/customers"))));
    for (const response of burst) expectProblem(response, 503, /database is unavailable/);
    expect((await answered(() => ready.get("/health/ready"))).status).toBe(503);

    await proxy.restore();
    await eventually(() => ready.get("/health/ready"), (response) => response.status === 200, 30_000);
    await eventually(() => client.get("/customers"), (response) => response.status === 200, 30_000);
    const created = await client.post("/customers", { email: "back@example.com" }, { headers: { "Idempotency-Key": "while-silent" } });
    expect(created.status).toBe(201);
    // Several in a row, each on a working connection: no request lands on a dead socket again.
    for (let i = 0; i < 6; i++) expect((await client.get("/customers")).body.total).toBe(1);

    expect(app.output()).not.toMatch(/uncaught|unhandledRejection|TypeError/i);
    expect(app.output()).not.toContain("silent@example.com");
  });
});
