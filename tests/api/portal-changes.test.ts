import { describe, expect, it } from "vitest";
import { api, statusOf, type Client } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { monthlyPrice, newPortalSession, openLink, portalOrigin } from "../helpers/portal";

/*
 * The portal's forms call the API's own verbs: the same checks (and messages) as the API, the
 * configuration's modes and bounds, events with actor `customer`. Journeys in a browser: e2e/portal.spec.ts.
 */

async function portalFor(configuration: Record<string, unknown> | ((upgrade: string) => Record<string, unknown>)) {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const base = await monthlyPrice(client, account, 1000);
  const upgrade = await monthlyPrice(client, account, 2500);
  const configured = await client.post(`/${account}/portal-configuration`, typeof configuration === "function" ? configuration(upgrade) : configuration);
  expect(configured.status, configured.text).toBe(200);
  const customer = (await client.post(`/${account}/customers`, { email: "changes@example.com" })).body.id as string;
  const subscription = (await client.post(`/${account}/subscriptions`, { customer, items: [{ price: base }], default_payment_method: "pm_sandbox_succeeds" })).body
    .id as string;
  const session = await newPortalSession(client, account, { customer });
  const cookie = (await openLink(session.url)).cookie!;
  const post = async (action: string, fields: Record<string, string>, back = "/portal") => {
    const response = await fetch(`${portalOrigin()}/portal/act/${action}`, {
      method: "POST",
      headers: { Cookie: cookie },
      body: new URLSearchParams({ back, ...fields }),
      redirect: "manual",
    });
    expect(response.status, action).toBe(303);
    return decodeURIComponent((response.headers.get("location") ?? "").replace(/\+/g, " "));
  };
  return { client, account, customer, subscription, session, post, upgrade, cookie };
}

const latest = async (client: Client, account: string, aggregate: string, type: string) =>
  (await client.get(`/${account}/events?aggregate_id=${aggregate}&event_type=${type}&limit=1`)).body.items[0];

describe("portal changes", () => {
  it("billing details: the API's checks and messages; saved with actor customer", async () => {
    const { client, account, customer, session, post } = await portalFor({});
    const apiRefusal = await client.post(`/${account}/customers/${customer}`, { tax_ids: [{ type: "eu_vat", value: "DE123" }] });
    expect(apiRefusal.status).toBe(422);
    const apiMessage = apiRefusal.body.errors[0].message as string;
    const refused = await post("details", { email: "changes@example.com", "tax_id.0": "DE123" }, "/portal/details");
    expect(refused).toContain("/portal/details?error=");
    expect(refused).toContain(apiMessage);
    const badEmail = await post("details", { email: "not-an-email" }, "/portal/details");
    expect(badEmail).toContain("email:");

    const saved = await post(
      "details",
      { name: "Ada", email: "ada@example.com", "address.line1": "1 Main St", "address.postal_code": "10115", "address.city": "Berlin", "address.country": "de", "tax_id.0": "DE 136.695.976" },
      "/portal/details",
    );
    expect(saved).toContain("notice=");
    const after = (await client.get(`/${account}/customers/${customer}`)).body;
    expect(after).toMatchObject({ name: "Ada", email: "ada@example.com", address: { city: "Berlin", country: "DE" }, tax_ids: [{ value: "DE136695976", country: "DE" }] });
    expect(await latest(client, account, customer, "customer.updated")).toMatchObject({ actor_type: "customer", actor_id: customer, metadata: { portal_session: session.id } });
  });

  it("cancel immediately when the configuration says so; pause and resume when enabled", async () => {
    const { client, account, subscription, post } = await portalFor({ features: { subscription_cancel: { mode: "immediately" }, subscription_pause: { enabled: true } } });
    await post("pause", { subscription });
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.status).toBe("paused");
    await post("resume", { subscription });
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.status).toBe("active");
    const refused = await post("cancel", { subscription, reason: "bored" });
    expect(refused).toContain("error=");
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.status).toBe("active");
    await post("cancel", { subscription, reason: "unused" });
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body).toMatchObject({ status: "cancelled", metadata: { cancellation_reason: "unused" } });
    expect(await latest(client, account, subscription, "customer.subscription.cancelled")).toMatchObject({ actor_type: "customer" });
  });

  it("switch: only the offered prices, quantity within the bounds; the preview is a change request of this session", async () => {
    const off = await portalFor({});
    const offered = await monthlyPrice(off.client, off.account, 2000);
    // Switching is off by default: refused server-side.
    const refused = await fetch(`${portalOrigin()}/portal/act/preview-switch`, {
      method: "POST",
      headers: { Cookie: off.cookie },
      body: new URLSearchParams({ subscription: off.subscription, price: offered }),
      redirect: "manual",
    });
    expect(refused.status).toBe(404);
    expect(await statusOf(`${portalOrigin()}/portal/subscriptions/${off.subscription}/change`, { headers: { Cookie: off.cookie } })).toBe(404);
    const {
      post: postOn,
      subscription: sub2,
      client: client2,
      account: account2,
      upgrade: upgrade2,
      session: session2,
    } = await portalFor((upgrade) => ({ features: { subscription_update: { enabled: true, prices: [upgrade], quantity: { enabled: true, minimum: 1, maximum: 3 } } } }));
    const stranger = await monthlyPrice(client2, account2, 9999);
    expect(await postOn("preview-switch", { subscription: sub2, price: stranger })).toContain("Not one of the offered plans");
    const current = (await client2.get(`/${account2}/subscriptions/${sub2}`)).body.items[0].price as string;
    expect(await postOn("preview-switch", { subscription: sub2, price: current, quantity: "4" })).toContain("Between 1 and 3");
    const preview = await postOn("preview-switch", { subscription: sub2, price: upgrade2, quantity: "2" });
    const requestId = preview.match(/\/change\/(scr_[a-z0-9_]+)$/)?.[1];
    expect(requestId, preview).toBeTruthy();
    const request = (await client2.get(`/${account2}/subscriptions/${sub2}/change-requests/${requestId}`)).body;
    expect(request).toMatchObject({ status: "open", next_invoice_amount_atom: 5000, metadata: { source: "portal", portal_session: session2.id } });
    await postOn("discard-switch", { subscription: sub2, request: requestId! });
    expect((await client2.get(`/${account2}/subscriptions/${sub2}/change-requests/${requestId}`)).body.status).toBe("canceled");
  });

  it("payment method: sandbox methods as the API checks them", async () => {
    const { client, account, subscription, post } = await portalFor({});
    expect(await post("payment-method", { subscription, payment_method: "pm_card_visa" }, "/portal/payment-method")).toContain("error=");
    await post("payment-method", { subscription, payment_method: "pm_sandbox_declined" }, "/portal/payment-method");
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.default_payment_method).toBe("pm_sandbox_declined");
  });
});
