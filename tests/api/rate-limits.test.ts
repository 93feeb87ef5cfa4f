import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, type ApiResponse } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { startApp, type RunningApp } from "../helpers/server";

/**
 * Two instances of the app on one database with a small limit (8 requests per second per live
 * token, so a quarter, 2, per address without credentials): the count is shared, the 429 is the
 * spec's problem with Retry-After and the IETF RateLimit fields.
 */
const LIMIT = 8;

describe("rate limits", () => {
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    const env = { DATABASE_URL: inject("databaseUrl"), RATE_LIMIT_PER_SECOND: String(LIMIT) };
    [first, second] = await Promise.all([startApp(env), startApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  /** Alternates between the two instances; repeats if the machine was too slow to stay in one window. */
  async function burst(send: (app: RunningApp) => Promise<ApiResponse>, count: number): Promise<ApiResponse[]> {
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      const responses: ApiResponse[] = [];
      for (let i = 0; i < count; i++) responses.push(await send(i % 2 === 0 ? first : second));
      if (Date.now() - started < 900 || attempt === 3) return responses;
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
  }

  it("shares one token's limit across instances and answers 429 with Retry-After and RateLimit fields", async () => {
    const merchant = await newMerchant();
    const responses = await burst((app) => api(merchant.secret.token, `${app.baseUrl}/api`).get("/customers"), LIMIT + 2);
    expect(responses.slice(0, LIMIT).map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    expect(responses[0]!.headers.get("ratelimit-policy")).toBe(`"token";q=${LIMIT};w=1`);
    expect(responses[0]!.headers.get("ratelimit")).toMatch(/^"token";r=\d+;t=[01]$/);
    // Each instance alone served only half the limit: the refusals prove the count is shared.
    for (const refused of responses.slice(LIMIT)) {
      expectProblem(refused, 429, /Too many requests with this credential/);
      expect(refused.body.error_code).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("ratelimit")).toMatch(/^"token";r=0;t=\d+$/);
    }
    // The next window serves again; another token has its own count.
    const other = await newMerchant();
    expect((await api(other.secret.token, `${first.baseUrl}/api`).get("/customers")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api(merchant.secret.token, `${second.baseUrl}/api`).get("/customers")).status).toBe(200);
  });

  it("limits a sandbox token to a quarter, and requests without valid credentials per address", async () => {
    const merchant = await newMerchant();
    const sandbox = await burst((app) => api(merchant.sandboxSecret.token, `${app.baseUrl}/api`).get("/customers"), LIMIT / 4 + 1);
    expect(sandbox.map((r) => r.status)).toEqual([...Array(LIMIT / 4).fill(200), 429]);
    expect(sandbox[0]!.headers.get("ratelimit-policy")).toBe(`"sandbox-token";q=${LIMIT / 4};w=1`);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const guesses = await burst((app) => api("st_prod_00000000000000000000000000000000", `${app.baseUrl}/api`).get("/customers"), LIMIT / 4 + 2);
    expect(guesses.slice(0, LIMIT / 4).map((r) => r.status)).toEqual(Array(LIMIT / 4).fill(401));
    for (const refused of guesses.slice(LIMIT / 4)) {
      expectProblem(refused, 429, /from this address without valid credentials/);
      expect(refused.headers.get("ratelimit-policy")).toBe(`"address";q=${LIMIT / 4};w=1`);
    }
    // A client address is the socket's: a forged X-Forwarded-For does not buy a fresh count.
    const forged = await api("st_prod_00000000000000000000000000000000", `${first.baseUrl}/api`).get("/customers", {
      headers: { "X-Forwarded-For": "203.0.113.9" },
    });
    expect(forged.status).toBe(429);
  });
});
