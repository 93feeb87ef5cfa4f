import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import type { Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { appBehindProxy, sleep, timed } from "../helpers/proxied-app";
import type { RunningApp } from "../helpers/server";
import type { TcpProxy } from "../helpers/tcp-proxy";

/**
 * A database that accepts TCP but answers nothing for a while, then thaws (a frozen host, a
 * stalled storage volume). The hard case: a query waiting for the pool's only connection is handed
 * to a new connection while that connection is still starting up, the queue bound (5 s) cancels it
 * before the startup completes, and then the database answers. postgres.js 3.4.9 would neither run
 * nor drop the cancelled query and never mark the connection open, so every later query queued
 * until `max_lifetime` (30 min). Pool of one, so that there is no other connection to hide it.
 */
describe("a database stall that heals", () => {
  let proxy: TcpProxy;
  let app: RunningApp;
  let merchant: Merchant;

  beforeAll(async () => {
    ({ proxy, app, merchant } = await appBehindProxy({}, { DATABASE_POOL_SIZE: "1" }));
  });
  afterAll(async () => {
    await app?.stop();
    await proxy?.cut();
  });

  it("serves within seconds after a stall that straddles a queue-bound cancel", { timeout: 90_000 }, async () => {
    const client = api(merchant.secret.token, `${app.baseUrl}/api`);
    for (let i = 0; i < 3; i++) expect((await client.get("/customers")).status).toBe(200);

    proxy.stall();
    // A's query waits on the one connection; B's waits in the pool's queue behind it.
    const a = timed(() => client.get("/customers"));
    await sleep(300);
    const b = timed(() => client.get("/customers"));
    await sleep(2_500);
    // The connection is reset: B's query is handed to a new connection, whose startup is stalled.
    proxy.reset();
    const [first, second] = await Promise.all([a, b]);
    for (const { response, ms } of [first, second]) {
      expectProblem(response, 503, /database is unavailable/);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(ms).toBeLessThan(10_000);
    }
    // B was answered when its queue bound cancelled its query; the startup completes only now.
    await proxy.restore();
    const healed = Date.now();
    let answer = await client.get("/customers");
    while (answer.status !== 200 && Date.now() - healed < 15_000) answer = await client.get("/customers");
    expect(answer.status, answer.text).toBe(200);
    // Within 2 s of the database answering again (generous on a loaded machine; before the fix,
    // never within the 15 s).
    expect(Date.now() - healed).toBeLessThan(4_000);
    for (let i = 0; i < 5; i++) expect((await client.get("/customers")).status).toBe(200);
    expect(app.output()).not.toMatch(/uncaught|unhandledRejection|TypeError/i);
  });
});
