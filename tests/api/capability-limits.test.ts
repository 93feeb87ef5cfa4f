import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { newPortalSession, openLink } from "../helpers/portal";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";

/*
 * Capability pages (a token or id in the path is the only credential) are limited per client
 * address, and a portal session ends after its absolute lifetime even while in use: each on an
 * app of its own with a small setting (the shared test app lifts both).
 */

/** Capability pages per minute per address on the limited app. */
const PAGES_PER_MINUTE = 4;
/** The short-lived app's portal session lifetime. */
const MAX_AGE_SECONDS = 3;

const unknownToken = "A".repeat(43);
const pages = [`/portal/start/${unknownToken}`, `/invoice/${unknownToken}`, `/checkout/cs_test_unknown`, `/api/hosted-invoices/${unknownToken}/pdf`];

describe("capability pages per address", () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      RATE_LIMIT_PAGES_PER_MINUTE: String(PAGES_PER_MINUTE),
      // A shared count later than its deadline is counted in this process instead, from zero
      // (lib/api/rate-limit.ts; its own tests in database-faults): on a busy machine a refill once
      // took longer than the default 1 s, and the requests past the limit were served. This test
      // is about the limit, so the shared count is always awaited.
      RATE_LIMIT_STORE_DEADLINE_MS: "120000",
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("serves the first requests, then answers 429 with Retry-After and a page a person can read", async () => {
    // One count for all capability pages from this address: one of each is served...
    const served = await Promise.all(pages.map((page) => fetch(`${app.baseUrl}${page}`, { redirect: "manual" })));
    for (const response of served) expect(response.status, response.url).not.toBe(429);
    // ...and past the limit every one is refused.
    for (const page of pages) {
      const refused = await fetch(`${app.baseUrl}${page}`, { redirect: "manual" });
      expect(refused.status, page).toBe(429);
      expect(Number(refused.headers.get("retry-after")), page).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("ratelimit-policy")).toBe(`"pages";q=${PAGES_PER_MINUTE};w=60`);
      if (page.startsWith("/api/")) {
        expect(refused.headers.get("content-type")).toContain("application/problem+json");
        const problem = (await refused.json()) as { status: number; error_code: string; detail: string };
        expect(problem).toMatchObject({ status: 429, error_code: "rate_limited" });
        expect(problem.detail).toMatch(/Too many requests from this address/);
      } else {
        expect(refused.headers.get("content-type")).toContain("text/html");
        const html = await refused.text();
        expect(html).toContain("<h1>Too many requests</h1>");
        expect(html).toMatch(new RegExp(`wait ${refused.headers.get("retry-after")} seconds, then reload the page`));
      }
    }
    // /api's own operations keep their own count.
    const merchant = await newMerchant();
    expect((await api(merchant.secret.token, apiRoot(app.baseUrl)).get("/customers")).status).toBe(200);
  });
});

describe("portal session lifetime", () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ DATABASE_URL: inject("databaseUrl"), PORTAL_SESSION_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS) });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("ends a session in constant use once its absolute lifetime has passed, as an idle one ends", async () => {
    const merchant = await newMerchant();
    const customer = (await merchant.client.post(`/${merchant.accountId}/customers`, { email: "lifetime@example.com" })).body.id as string;
    const link = (await newPortalSession(merchant.client, merchant.accountId, { customer })).url;
    const opened = await openLink(`${app.baseUrl}/portal/start/${link.split("/").pop()!}`);
    expect(opened.cookie).not.toBeNull();
    const home = () => fetch(`${app.baseUrl}/portal`, { headers: { Cookie: opened.cookie! }, redirect: "manual" });
    expect((await home()).status).toBe(200);
    // Every poll is a page view, so the session is never idle: only the lifetime can end it.
    const ended = await eventually(home, (response) => response.status !== 200, 30_000);
    expect(ended.status).toBe(307);
    expect(ended.headers.get("location")).toMatch(/\/portal\/ended$/);
  });
});
