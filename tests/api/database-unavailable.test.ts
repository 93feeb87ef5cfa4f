import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { TcpProxy } from "../helpers/tcp-proxy";

/**
 * The app's database behind a proxy this test controls: cut it, and the API answers fast 503s
 * with Retry-After (readiness too) without crashing; restore it, and the same process serves again.
 */
describe("without its database", () => {
  let proxy: TcpProxy;
  let app: RunningApp;
  let merchant: Merchant;

  beforeAll(async () => {
    const url = new URL(inject("databaseUrl"));
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    app = await startApp({ DATABASE_URL: url.toString() });
    merchant = await newMerchant();
  });
  afterAll(async () => {
    await app?.stop();
    await proxy?.cut();
  });

  it("answers 503 with Retry-After at once, and recovers without a restart", { timeout: 90_000 }, async () => {
    const client = api(merchant.secret.token, `${app.baseUrl}/api`);
    const ready = api(undefined, `${app.baseUrl}/api`);
    expect((await ready.get("/health/ready")).body).toEqual({ status: "ready", database: "ok" });
    expect((await client.get("/customers")).status).toBe(200);

    await proxy.cut();
    for (const call of [
      () => client.get("/customers"),
      () => client.post("/customers", { email: "away@example.com" }),
      () => client.post("/customers", { email: "away@example.com" }, { headers: { "Idempotency-Key": "while-away" } }),
      () => ready.get("/health/ready"),
    ]) {
      const started = Date.now();
      const response = await call();
      // "Fast": bounded by the connect timeout (5 s), never the 30 s+ hangs of before.
      expect(Date.now() - started).toBeLessThan(8_000);
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
