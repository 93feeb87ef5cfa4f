import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { portalSessions } from "@/db/schema";
import { api, statusOf } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { monthlyPrice, newPortalSession, openLink, portalOrigin } from "../helpers/portal";
import { expectProblem } from "../helpers/problem";

/* POST /api/portal-sessions, the single-use link and its cookie (the portal's pages: portal-authorization.test.ts). */

const origin = portalOrigin;
const newSession = newPortalSession;

describe("portal sessions", () => {
  it("answers Stripe's billing_portal.session shape; the link's token is stored only hashed", async () => {
    const merchant = await newMerchant();
    const customer = (await merchant.client.post(`/${merchant.accountId}/customers`, { email: "portal@example.com" })).body.id as string;
    const session = await newSession(merchant.client, merchant.accountId, { customer, return_url: "https://acme.example/account" });
    expect(session).toMatchObject({
      object: "portal_session",
      id: expect.stringMatching(/^bps_[a-z]+_/),
      url: expect.stringMatching(new RegExp(`^${origin()}/portal/start/[A-Za-z0-9_-]{43}$`)),
      return_url: "https://acme.example/account",
      customer,
      flow: null,
      livemode: true,
    });
    expect(new Date(session.expires_at).getTime() - new Date(session.created).getTime()).toBe(60 * 60 * 1000);
    const token = session.url.split("/").pop()!;
    const [row] = await (await getDb()).select().from(portalSessions).where(eq(portalSessions.id, session.id));
    expect(row!.linkTokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("refuses a publishable token (403) and names a wrong customer or subscription (422)", async () => {
    const merchant = await newMerchant();
    const other = await newMerchant();
    const customer = (await merchant.client.post(`/${merchant.accountId}/customers`, { email: "a@example.com" })).body.id as string;
    const stranger = (await other.client.post(`/${other.accountId}/customers`, { email: "b@example.com" })).body.id as string;
    const price = await monthlyPrice(other.client, other.accountId);
    const foreignSubscription = (await other.client.post(`/${other.accountId}/subscriptions`, { customer: stranger, items: [{ price }] })).body.id as string;
    expectProblem(await api(merchant.publishable.token).post(`/${merchant.accountId}/portal-sessions`, { customer }), 403);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ customer: stranger }, /customer/],
      [{ customer, flow: { type: "subscription_cancel" } }, /flow\.subscription/],
      [{ customer, flow: { type: "subscription_update", subscription: foreignSubscription } }, /flow\.subscription/],
      [{ customer, return_url: "javascript:alert(1)" }, /return_url/],
      [{ customer, flow: { type: "elsewhere" } }, /flow\.type/],
    ];
    for (const [body, field] of cases) {
      const response = await merchant.client.post(`/${merchant.accountId}/portal-sessions`, body);
      expectProblem(response, 422);
      expect(JSON.stringify(response.body.errors), JSON.stringify(body)).toMatch(field);
    }
  });

  it("opens once: an HttpOnly SameSite=Lax cookie on /portal; opened again, a page linking back", async () => {
    const merchant = await newMerchant();
    const customer = (await merchant.client.post(`/${merchant.accountId}/customers`, { email: "once@example.com" })).body.id as string;
    const session = await newSession(merchant.client, merchant.accountId, { customer, return_url: "https://acme.example/back" });
    const first = await openLink(session.url);
    expect(first.status).toBe(303);
    expect(first.location).toBe("/portal");
    expect(first.setCookie).toMatch(/^portal_session=[A-Za-z0-9_-]{43}; Path=\/portal; HttpOnly; SameSite=Lax$/);
    const home = await fetch(`${origin()}/portal`, { headers: { Cookie: first.cookie! }, redirect: "manual" });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Subscriptions");

    const again = await openLink(session.url);
    expect(again.status).toBe(303);
    expect(again.setCookie).toBeNull();
    const refused = await fetch(`${origin()}${again.location}`);
    const html = await refused.text();
    expect(html).toContain("already used");
    expect(html).toContain('href="https://acme.example/back"');
    // The first browser's session goes on.
    expect(await statusOf(`${origin()}/portal`, { headers: { Cookie: first.cookie! }, redirect: "manual" })).toBe(200);
  });

  it("an expired link (the sandbox's test clock an hour on) is refused, linking to the configuration's return URL", async () => {
    const merchant = await newMerchant();
    const sandbox = api(merchant.sandboxSecret.token);
    const account = merchant.sandboxAccountId;
    await sandbox.post(`/${account}/portal-configuration`, { default_return_url: "https://acme.example/default" });
    const customer = (await sandbox.post(`/${account}/customers`, { email: "late@example.com" })).body.id as string;
    const session = await newSession(sandbox, account, { customer });
    const advanced = await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(new Date(session.expires_at).getTime() + 1000).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);
    const opened = await openLink(session.url);
    expect(opened.setCookie).toBeNull();
    const html = await (await fetch(`${origin()}${opened.location}`)).text();
    expect(html).toContain("expired");
    expect(html).toContain('href="https://acme.example/default"');
  });

  it("a session ends after 30 minutes idle, not 30 minutes after it started (the account's clock)", async () => {
    const merchant = await newMerchant();
    const sandbox = api(merchant.sandboxSecret.token);
    const account = merchant.sandboxAccountId;
    const customer = (await sandbox.post(`/${account}/customers`, { email: "idle@example.com" })).body.id as string;
    const opened = await openLink((await newSession(sandbox, account, { customer })).url);
    const later = async (minutes: number) => {
      const clock = (await sandbox.get(`/${account}/test-clock`)).body as { now: string };
      const advanced = await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(new Date(clock.now).getTime() + minutes * 60 * 1000).toISOString() });
      expect(advanced.status, advanced.text).toBe(200);
    };
    // Active: 20 minutes, a page, 20 more minutes (40 in all), still in.
    await later(20);
    expect(await statusOf(`${origin()}/portal`, { headers: { Cookie: opened.cookie! }, redirect: "manual" })).toBe(200);
    await later(20);
    expect(await statusOf(`${origin()}/portal`, { headers: { Cookie: opened.cookie! }, redirect: "manual" })).toBe(200);
    // Idle for 31 minutes: ended.
    await later(31);
    const home = await fetch(`${origin()}/portal`, { headers: { Cookie: opened.cookie! }, redirect: "manual" });
    expect(home.status).toBe(307);
    expect(home.headers.get("location")).toMatch(/\/portal\/ended$/);
  });
});
