import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { TOKEN_CACHE_TTL_MS } from "@/lib/auth/tokens";
import { api, apiRoot } from "../helpers/api";
import { newMerchant, revokeToken, type Merchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";

// Token look-ups are cached per server process (lib/auth/tokens.ts). A revocation made anywhere
// (here: a third process, the test's, writing the row) must stop the token on every server within
// TOKEN_CACHE_TTL_MS: any request that starts later than that is refused.

let second: RunningApp;
let merchant: Merchant;

beforeAll(async () => {
  second = await startApp({ DATABASE_URL: inject("databaseUrl") });
  merchant = await newMerchant();
}, 90_000);

afterAll(async () => {
  await second?.stop();
});

describe("cached token look-ups", () => {
  it("a revoked token stops working within the bound on both server processes", async () => {
    expect(TOKEN_CACHE_TTL_MS).toBeLessThanOrEqual(1_000);
    const servers = [api(merchant.secret.token), api(merchant.secret.token, apiRoot(second.baseUrl))];
    // Warm both caches, and keep them warm until the revocation.
    for (const client of servers) expect((await client.get("/customers?limit=1")).status).toBe(200);
    let polling = true;
    const samples: { server: number; startedAt: number; status: number }[] = [];
    const pollers = servers.map(async (client, server) => {
      while (polling) {
        const startedAt = Date.now();
        const response = await client.get("/customers?limit=1");
        samples.push({ server, startedAt, status: response.status });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    // Conditions, not delays: each server answered a few polls before the revocation, and was polled
    // again after the cache's bound had passed (however long a loaded machine takes to get there).
    const polledSince = (server: number, since: number, count: number) => samples.filter((s) => s.server === server && s.startedAt > since).length >= count;
    await eventually(async () => polledSince(0, 0, 3) && polledSince(1, 0, 3), (done) => done);
    await revokeToken(merchant.secret.id);
    const revokedAt = Date.now();
    await eventually(async () => polledSince(0, revokedAt + TOKEN_CACHE_TTL_MS, 1) && polledSince(1, revokedAt + TOKEN_CACHE_TTL_MS, 1), (done) => done);
    polling = false;
    await Promise.all(pollers);

    for (const server of [0, 1]) {
      const late = samples.filter((s) => s.server === server && s.startedAt > revokedAt + TOKEN_CACHE_TTL_MS);
      expect(late.length, `server ${server} was polled after the bound`).toBeGreaterThan(0);
      expect(late.map((s) => s.status)).toEqual(late.map(() => 401));
      // Before the revocation it did work on this server, through the cache.
      expect(samples.some((s) => s.server === server && s.startedAt < revokedAt - 50 && s.status === 200)).toBe(true);
    }
    const refused = await servers[1]!.get("/customers");
    expect(refused.body.detail).toMatch(/revoked/);
  });
});
