import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, type ApiResponse, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";

/**
 * Two instances of the app on one database with a small limit (8 requests per window per live
 * token, so a quarter, 2, per address without credentials): the count is shared, the 429 is the
 * spec's problem with Retry-After and the IETF RateLimit fields. The window is 5 s here, not the
 * default 1 s, and the shared count is waited for as long as it takes: a busy machine cannot then
 * split a burst across two windows or count it in each instance alone.
 */
const LIMIT = 8;
const WINDOW_SECONDS = 5;
const SLOW_MACHINE_ENV = { RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMIT_STORE_DEADLINE_MS: "60000" };

function remainingOf(response: ApiResponse): number {
  return Number(/;r=(\d+);/.exec(response.headers.get("ratelimit") ?? "")?.[1] ?? NaN);
}

/**
 * Alternates between two instances. A key's window opens at its first request, so the burst fits
 * one window unless it took longer than the window; that is reported, not passed off as a limit bug.
 */
async function burst(apps: [RunningApp, RunningApp], send: (app: RunningApp) => Promise<ApiResponse>, count: number): Promise<ApiResponse[]> {
  const started = Date.now();
  const responses: ApiResponse[] = [];
  for (let i = 0; i < count; i++) responses.push(await send(apps[i % 2]!));
  const took = Date.now() - started;
  expect(took, `the burst of ${count} took ${took} ms, longer than the ${WINDOW_SECONDS}-s window`).toBeLessThan(WINDOW_SECONDS * 1000);
  return responses;
}

describe("rate limits", () => {
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    const env = { DATABASE_URL: inject("databaseUrl"), RATE_LIMIT_PER_SECOND: String(LIMIT), ...SLOW_MACHINE_ENV };
    [first, second] = await Promise.all([startApp(env), startApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  const burstBoth = (send: (app: RunningApp) => Promise<ApiResponse>, count: number) => burst([first, second], send, count);

  it("shares one token's limit across instances and answers 429 with Retry-After and RateLimit fields", async () => {
    const merchant = await newMerchant();
    const responses = await burstBoth((app) => api(merchant.secret.token, apiRoot(app.baseUrl)).get("/customers"), LIMIT + 2);
    expect(responses.slice(0, LIMIT).map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    expect(responses[0]!.headers.get("ratelimit-policy")).toBe(`"token";q=${LIMIT};w=${WINDOW_SECONDS}`);
    expect(responses[0]!.headers.get("ratelimit")).toMatch(/^"token";r=\d+;t=[0-5]$/);
    // What is left of the shared quota, whichever instance answers (a batch is one point here).
    expect(responses.slice(0, LIMIT).map((r) => remainingOf(r))).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    // Each instance alone served only half the limit: the refusals prove the count is shared.
    for (const refused of responses.slice(LIMIT)) {
      expectProblem(refused, 429, /Too many requests with this credential/);
      expect(refused.body.error_code).toBe("rate_limited");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("ratelimit")).toMatch(/^"token";r=0;t=\d+$/);
    }
    // The next window serves again; another token has its own count.
    const other = await newMerchant();
    expect((await api(other.secret.token, apiRoot(first.baseUrl)).get("/customers")).status).toBe(200);
    // Waited for (the window's turn), not slept through.
    await eventually(() => api(merchant.secret.token, apiRoot(second.baseUrl)).get("/customers"), (response) => response.status === 200, 4 * WINDOW_SECONDS * 1000);
  });

  it("limits a sandbox token to a quarter, and requests without valid credentials per address", async () => {
    const merchant = await newMerchant();
    const sandbox = await burstBoth((app) => api(merchant.sandboxSecret.token, apiRoot(app.baseUrl)).get("/customers"), LIMIT / 4 + 1);
    expect(sandbox.map((r) => r.status)).toEqual([...Array(LIMIT / 4).fill(200), 429]);
    expect(sandbox[0]!.headers.get("ratelimit-policy")).toBe(`"sandbox-token";q=${LIMIT / 4};w=${WINDOW_SECONDS}`);

    const guesses = await burstBoth((app) => api("st_prod_00000000000000000000000000000000", apiRoot(app.baseUrl)).get("/customers"), LIMIT / 4 + 2);
    expect(guesses.slice(0, LIMIT / 4).map((r) => r.status)).toEqual(Array(LIMIT / 4).fill(401));
    for (const refused of guesses.slice(LIMIT / 4)) {
      expectProblem(refused, 429, /from this address without valid credentials/);
      expect(refused.headers.get("ratelimit-policy")).toBe(`"address";q=${LIMIT / 4};w=${WINDOW_SECONDS}`);
    }
    // A client address is the socket's: a forged X-Forwarded-For does not buy a fresh count.
    const forged = await api("st_prod_00000000000000000000000000000000", apiRoot(first.baseUrl)).get("/customers", {
      headers: { "X-Forwarded-For": "203.0.113.9" },
    });
    expect(forged.status).toBe(429);
  });
});

/**
 * With a limit of 100 each instance takes its points from the shared count ten at a time; the
 * RateLimit field still reports the shared quota's remaining points (not what is left of the
 * instance's batch), off by at most the other instance's batch.
 */
describe("RateLimit remaining with batches", () => {
  const limit = 100;
  const batch = limit / 10;
  let first: RunningApp;
  let second: RunningApp;

  beforeAll(async () => {
    const env = { DATABASE_URL: inject("databaseUrl"), RATE_LIMIT_PER_SECOND: String(limit), ...SLOW_MACHINE_ENV };
    [first, second] = await Promise.all([startApp(env), startApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it("reports the shared quota's remaining count, within a batch, from either instance", async () => {
    const merchant = await newMerchant();
    const responses = await burst([first, second], (app) => api(merchant.secret.token, apiRoot(app.baseUrl)).get("/customers"), 12);
    expect(responses.map((r) => r.status)).toEqual(Array(12).fill(200));
    responses.forEach((response, i) => {
      const exact = limit - 1 - i;
      // Each instance knows the shared count as of its last batch: off by at most the other's batch.
      expect(Math.abs(remainingOf(response) - exact), `request ${i + 1}: r=${remainingOf(response)}, exact ${exact}`).toBeLessThanOrEqual(batch);
    });
    // The first answer of a fresh window: one point used of a hundred.
    expect(remainingOf(responses[0]!)).toBe(limit - 1);
  });
});
