import { beforeAll, describe, expect, it } from "vitest";
import { api, apiBaseUrl, type Client } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { monthlyPrice, newPortalSession, openLink, portalOrigin } from "../helpers/portal";

/*
 * The portal's authorization matrix: a portal session reads and changes only its own customer.
 * Every portal route with another customer's ids (same account, another account) is a 404 and
 * changes nothing; the same route with the session's own ids works (so the 404 means something).
 * The cookie reaches neither /api nor the dashboard. (A publishable token reading entitlements of
 * its own account only: tests/api/entitlements.test.ts.)
 */

type Ids = { subscription: string; invoice: string; request: string };

/** A customer with a subscription (sandbox: paid with a sandbox method), its first invoice and an open change request. */
async function customerWithEverything(client: Client, accountId: string, prices: { base: string; upgrade: string }, email: string): Promise<{ customer: string } & Ids> {
  const customer = (await client.post(`/${accountId}/customers`, { email })).body.id as string;
  const created = await client.post(`/${accountId}/subscriptions`, { customer, items: [{ price: prices.base }], default_payment_method: "pm_sandbox_succeeds" });
  expect(created.status, created.text).toBe(201);
  const subscription = created.body.id as string;
  const invoice = created.body.latest_invoice as string;
  const item = created.body.items[0].id as string;
  const request = await client.post(`/${accountId}/subscriptions/${subscription}/change-requests`, { steps: [{ type: "switch_price", item, price: prices.upgrade }] });
  expect(request.status, request.text).toBe(201);
  return { customer, subscription, invoice, request: request.body.id as string };
}

/** Every portal page and file that names an object. */
const PAGES = (ids: Ids, own: Ids) => [
  `/portal/subscriptions/${ids.subscription}/cancel`,
  `/portal/subscriptions/${ids.subscription}/change`,
  `/portal/subscriptions/${ids.subscription}/change/${ids.request}`,
  // Another's change request under the session's own subscription.
  `/portal/subscriptions/${own.subscription}/change/${ids.request}`,
  `/portal/invoices/${ids.invoice}/pdf`,
];

/** Every portal form that names an object, with its fields. */
const ACTIONS = (ids: Ids, own: Ids): [string, Record<string, string>][] => [
  ["cancel", { subscription: ids.subscription, reason: "too_expensive" }],
  ["undo-cancel", { subscription: ids.subscription }],
  ["pause", { subscription: ids.subscription }],
  ["resume", { subscription: ids.subscription }],
  ["preview-switch", { subscription: ids.subscription, price: "unused", quantity: "2" }],
  ["confirm-switch", { subscription: ids.subscription, request: ids.request }],
  ["discard-switch", { subscription: ids.subscription, request: ids.request }],
  ["confirm-switch", { subscription: own.subscription, request: ids.request }],
  ["discard-switch", { subscription: own.subscription, request: ids.request }],
  ["cancel-pending-change", { subscription: ids.subscription, request: ids.request }],
  ["cancel-pending-change", { subscription: own.subscription, request: ids.request }],
  ["payment-method", { subscription: ids.subscription, payment_method: "pm_sandbox_declined" }],
];

describe("portal authorization matrix", () => {
  let cookie: string;
  let own: Ids & { customer: string };
  let sameAccount: Ids & { customer: string };
  let otherAccount: Ids & { customer: string };
  let sandbox: Client;
  let other: Client;
  let accountId: string;
  let otherAccountId: string;

  beforeAll(async () => {
    const merchant = await newMerchant();
    const stranger = await newMerchant();
    sandbox = api(merchant.sandboxSecret.token);
    other = api(stranger.sandboxSecret.token);
    accountId = merchant.sandboxAccountId;
    otherAccountId = stranger.sandboxAccountId;
    const prices = { base: await monthlyPrice(sandbox, accountId, 1000), upgrade: await monthlyPrice(sandbox, accountId, 3000) };
    const otherPrices = { base: await monthlyPrice(other, otherAccountId, 1000), upgrade: await monthlyPrice(other, otherAccountId, 3000) };
    // Everything on: a 404 below is the ownership check, not a feature turned off.
    const configured = await sandbox.post(`/${accountId}/portal-configuration`, {
      features: { subscription_pause: { enabled: true }, subscription_update: { enabled: true, prices: [prices.upgrade], quantity: { enabled: true } } },
    });
    expect(configured.status, configured.text).toBe(200);
    own = await customerWithEverything(sandbox, accountId, prices, "own@example.com");
    sameAccount = await customerWithEverything(sandbox, accountId, prices, "neighbour@example.com");
    otherAccount = await customerWithEverything(other, otherAccountId, otherPrices, "stranger@example.com");
    const session = await newPortalSession(sandbox, accountId, { customer: own.customer });
    cookie = (await openLink(session.url)).cookie!;
    expect(cookie).toBeTruthy();
  });

  const get = (path: string) => fetch(`${portalOrigin()}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
  const post = (action: string, fields: Record<string, string>) =>
    fetch(`${portalOrigin()}/portal/act/${action}`, { method: "POST", headers: { Cookie: cookie }, body: new URLSearchParams({ back: "/portal", ...fields }), redirect: "manual" });

  it.each(["same account", "other account"] as const)("every page with another customer's ids (%s) is a 404", async (whose) => {
    const ids = whose === "same account" ? sameAccount : otherAccount;
    for (const path of PAGES(ids, own)) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
    }
  });

  it.each(["same account", "other account"] as const)("every form with another customer's ids (%s) is a 404 and changes nothing", async (whose) => {
    const ids = whose === "same account" ? sameAccount : otherAccount;
    const client = whose === "same account" ? sandbox : other;
    const account = whose === "same account" ? accountId : otherAccountId;
    const before = (await client.get(`/${account}/subscriptions/${ids.subscription}`)).body;
    for (const [action, fields] of ACTIONS(ids, own)) {
      const response = await post(action, fields);
      expect(response.status, `${action} ${JSON.stringify(fields)}`).toBe(404);
    }
    expect((await client.get(`/${account}/subscriptions/${ids.subscription}`)).body).toEqual(before);
    expect((await client.get(`/${account}/subscriptions/${ids.subscription}/change-requests/${ids.request}`)).body.status).toBe("open");
  });

  it("the same pages with the session's own ids answer (the matrix's 404s are the ownership check)", async () => {
    for (const path of PAGES(own, own).filter((path) => !path.includes(`${own.subscription}/change/${own.request}`))) {
      const response = await get(path);
      // A change request the merchant made, not this session, is not the portal's: 404 too.
      expect(response.status, path).toBe(200);
    }
    expect((await get(`/portal/subscriptions/${own.subscription}/change/${own.request}`)).status).toBe(404);
    const undo = await post("undo-cancel", { subscription: own.subscription });
    expect(undo.status).toBe(303);
    expect(undo.headers.get("location")).toMatch(/^\/portal\?notice=/);
  });

  it("the portal cookie reaches neither /api nor the dashboard", async () => {
    const apiCall = await fetch(`${apiBaseUrl()}/${accountId}/customers`, { headers: { Cookie: cookie } });
    expect(apiCall.status).toBe(401);
    const unscoped = await fetch(`${apiBaseUrl()}/customers/${own.customer}`, { headers: { Cookie: cookie } });
    expect(unscoped.status).toBe(401);
    const dashboard = await fetch(`${portalOrigin()}/accounts/${accountId}/customers`, { headers: { Cookie: cookie }, redirect: "manual" });
    expect(dashboard.status).toBe(307);
    expect(dashboard.headers.get("location")).toMatch(/\/signin$/);
  });

  it("a feature the configuration turns off is refused server-side, not only hidden", async () => {
    const off = await sandbox.post(`/${accountId}/portal-configuration`, { features: { subscription_pause: { enabled: false }, invoice_history: { enabled: false } } });
    expect(off.status, off.text).toBe(200);
    try {
      expect((await post("pause", { subscription: own.subscription })).status).toBe(404);
      expect((await get(`/portal/invoices/${own.invoice}/pdf`)).status).toBe(404);
      expect((await get("/portal/invoices")).status).toBe(404);
      expect((await sandbox.get(`/${accountId}/subscriptions/${own.subscription}`)).body.status).toBe("active");
    } finally {
      await sandbox.post(`/${accountId}/portal-configuration`, { features: { subscription_pause: { enabled: true }, invoice_history: { enabled: true } } });
    }
  });

  it("a change's events carry actor customer and the portal session", async () => {
    const session = await newPortalSession(sandbox, accountId, { customer: own.customer });
    const mine = (await openLink(session.url)).cookie!;
    const cancelled = await fetch(`${portalOrigin()}/portal/act/cancel`, {
      method: "POST",
      headers: { Cookie: mine },
      body: new URLSearchParams({ back: "/portal", subscription: own.subscription, reason: "too_expensive" }),
      redirect: "manual",
    });
    expect(cancelled.status).toBe(303);
    const subscription = (await sandbox.get(`/${accountId}/subscriptions/${own.subscription}`)).body;
    expect(subscription).toMatchObject({ cancel_at_period_end: true, metadata: { cancellation_reason: "too_expensive" } });
    const events = (await sandbox.get(`/${accountId}/events?aggregate_id=${own.subscription}&event_type=customer.subscription.updated&limit=1`)).body;
    expect(events.items[0]).toMatchObject({ actor_type: "customer", actor_id: own.customer, metadata: { portal_session: session.id } });
  });
});
