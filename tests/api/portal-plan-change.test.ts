import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { monthlyPrice, newPortalSession, openLink, portalOrigin } from "../helpers/portal";

/*
 * The portal configuration's plan-change rule (`features.subscription_update.plan_change`): a
 * downgrade scheduled for the period end, shown in the portal and cancelled there through the
 * API's own verbs (actor `customer`); an upgrade charged now; `immediate` and `account_policy`.
 * The renewal applying it, in a browser: e2e/portal.spec.ts.
 */

async function portalWith(planChange?: string) {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const current = await monthlyPrice(client, account, 2500);
  const cheaper = await monthlyPrice(client, account, 1000);
  const dearer = await monthlyPrice(client, account, 4000);
  const update = { enabled: true, prices: [cheaper, dearer], ...(planChange ? { plan_change: planChange } : {}) };
  const configured = await client.post(`/${account}/portal-configuration`, { features: { subscription_update: update } });
  expect(configured.status, configured.text).toBe(200);
  const customer = (await client.post(`/${account}/customers`, { email: "later@example.com" })).body.id as string;
  const created = await client.post(`/${account}/subscriptions`, { customer, items: [{ price: current }], default_payment_method: "pm_sandbox_succeeds" });
  expect(created.status, created.text).toBe(201);
  const subscription = created.body.id as string;
  const session = await newPortalSession(client, account, { customer });
  const cookie = (await openLink(session.url)).cookie!;
  const post = async (action: string, fields: Record<string, string>, back = "/portal") => {
    const response = await fetch(`${portalOrigin()}/portal/act/${action}`, { method: "POST", headers: { Cookie: cookie }, body: new URLSearchParams({ back, ...fields }), redirect: "manual" });
    expect(response.status, action).toBe(303);
    return decodeURIComponent((response.headers.get("location") ?? "").replace(/\+/g, " "));
  };
  const page = async (path: string) => (await fetch(`${portalOrigin()}${path}`, { headers: { Cookie: cookie } })).text();
  const preview = async (price: string) => {
    const location = await post("preview-switch", { subscription, price });
    const id = location.match(/\/change\/(scr_[a-z0-9_]+)$/)?.[1];
    expect(id, location).toBeTruthy();
    return (await client.get(`/${account}/subscriptions/${subscription}/change-requests/${id}`)).body;
  };
  return { client, account, subscription, session, post, page, preview, current, cheaper, dearer };
}

describe("portal plan-change rule", () => {
  it("upgrade now, downgrade at the period end: the downgrade is scheduled, listed, and cancelled by the customer", async () => {
    const { client, account, subscription, session, post, page, preview, current, cheaper, dearer } = await portalWith("upgrade_now_downgrade_at_period_end");
    const periodEnd = (await client.get(`/${account}/subscriptions/${subscription}`)).body.current_period_end as string;

    const downgrade = await preview(cheaper);
    expect(downgrade).toMatchObject({ effective: "period_end", amount_due_now_atom: 0, next_invoice_amount_atom: 1000, status: "open" });
    expect(await page(`/portal/subscriptions/${subscription}/change/${downgrade.id}`)).toContain('data-effective="period_end"');
    expect(await post("confirm-switch", { subscription, request: downgrade.id })).toMatch(/notice=Your plan changes on /);

    const scheduled = (await client.get(`/${account}/subscriptions/${subscription}`)).body;
    expect(scheduled.items[0].price).toBe(current);
    expect(scheduled.pending_changes).toMatchObject([{ change_request: downgrade.id, effective_at: periodEnd }]);
    const home = await page("/portal");
    expect(home).toContain(`data-testid="pending-change" data-id="${downgrade.id}"`);
    expect(home).toContain('data-testid="next-invoice" data-atoms="1000"');
    expect(home).toContain('data-testid="cancel-pending-change"');

    expect(await post("cancel-pending-change", { subscription, request: downgrade.id })).toContain("notice=The scheduled change is cancelled");
    expect((await client.get(`/${account}/subscriptions/${subscription}/change-requests/${downgrade.id}`)).body).toMatchObject({
      status: "canceled",
      cancellation_reason: "requested",
    });
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.pending_changes).toEqual([]);
    const [canceled] = (await client.get(`/${account}/events?aggregate_id=${downgrade.id}&event_type=subscription_change_request.canceled&limit=1`)).body.items;
    expect(canceled).toMatchObject({ actor_type: "customer", metadata: { portal_session: session.id } });
    expect(await page("/portal")).not.toContain('data-testid="pending-change"');
    // Cancelled once: it is no longer pending (not found, as another's would be).
    const again = await fetch(`${portalOrigin()}/portal/act/cancel-pending-change`, {
      method: "POST",
      headers: { Cookie: (await openLink((await newPortalSession(client, account, { customer: scheduled.customer })).url)).cookie! },
      body: new URLSearchParams({ back: "/portal", subscription, request: downgrade.id }),
      redirect: "manual",
    });
    expect(again.status).toBe(404);

    // An upgrade under the same rule is charged now: the API preview's proration.
    const upgrade = await preview(dearer);
    expect(upgrade.effective).toBe("now");
    expect(upgrade.amount_due_now_atom).toBeGreaterThan(0);
    expect(await post("confirm-switch", { subscription, request: upgrade.id })).toContain("notice=Your plan is changed.");
    const applied = (await client.get(`/${account}/subscriptions/${subscription}/change-requests/${upgrade.id}`)).body;
    const invoice = (await client.get(`/${account}/invoices/${applied.invoice}`)).body;
    expect(invoice.total_amount_atom).toBe(upgrade.amount_due_now_atom);
  });

  it("a change the merchant scheduled is listed but the customer cannot cancel it", async () => {
    const { client, account, subscription, post, page, cheaper } = await portalWith("upgrade_now_downgrade_at_period_end");
    const item = (await client.get(`/${account}/subscriptions/${subscription}`)).body.items[0].id as string;
    const made = await client.post(`/${account}/subscriptions/${subscription}/change-requests`, { steps: [{ type: "switch_price", item, price: cheaper }], effective: "period_end" });
    expect((await client.post(`/${account}/subscriptions/${subscription}/change-requests/${made.body.id}/apply`, {})).body.status).toBe("scheduled");
    const home = await page("/portal");
    expect(home).toContain(`data-id="${made.body.id}"`);
    expect(home).not.toContain('data-testid="cancel-pending-change"');
    expect(await post("cancel-pending-change", { subscription, request: made.body.id })).toContain("error=This change was scheduled by the merchant");
    expect((await client.get(`/${account}/subscriptions/${subscription}/change-requests/${made.body.id}`)).body.status).toBe("scheduled");
  });

  it("account_policy (the default) follows the account's plan_change_policy; immediate applies a downgrade now", async () => {
    const { client, account, post, subscription, preview, cheaper } = await portalWith();
    const first = await preview(cheaper);
    expect(first.effective).toBe("now");
    await post("discard-switch", { subscription, request: first.id });
    expect((await client.post(`/${account}/account-settings`, { plan_change_policy: "upgrade_now_downgrade_at_period_end" })).status).toBe(200);
    const second = await preview(cheaper);
    expect(second.effective).toBe("period_end");
    await post("discard-switch", { subscription, request: second.id });
    expect((await client.post(`/${account}/portal-configuration`, { features: { subscription_update: { plan_change: "immediate" } } })).status).toBe(200);
    const third = await preview(cheaper);
    expect(third).toMatchObject({ effective: "now", amount_due_now_atom: 0 });
    expect(await post("confirm-switch", { subscription, request: third.id })).toContain("notice=Your plan is changed.");
    expect((await client.get(`/${account}/subscriptions/${subscription}`)).body.items[0].price).toBe(cheaper);
  });
});
