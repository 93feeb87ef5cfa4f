import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant, setOrganizationStanding } from "../helpers/merchant";
import { newOperator } from "../helpers/operator";
import { expectProblem } from "../helpers/problem";

// The shared test app runs with PLATFORM_BILLING=on (tests/setup/api-server.ts); off, the default,
// is tests/api/platform-billing-off.test.ts.
let operator: Awaited<ReturnType<typeof newOperator>>;
beforeAll(async () => {
  operator = await newOperator();
});

/** The operator's view of a merchant account: the billing status plus the platform objects behind it. */
const operatorView = async (accountId: string, body: Record<string, unknown> = {}) => {
  const response = await operator.client.post(`/${accountId}/billing-status`, body);
  expect(response.status).toBe(200);
  return response.body;
};

describe("GET /{account_id}/billing-status", () => {
  it("has exactly the spec's shape; a new organization is trialing its platform subscription", async () => {
    const merchant = await newMerchant();
    const response = await merchant.client.get(`/${merchant.accountId}/billing-status`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      cit_allowed: true,
      mit_allowed: true,
      cit_processing_enabled: true,
      mit_processing_enabled: true,
      billing_status: "trialing",
      trial_days_remaining: 14,
      trial_end: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      subscription_end: null,
    });
    // The trial is the platform subscription's: a real subscription on the platform's account.
    const view = await operatorView(merchant.accountId);
    const subscription = await operator.client.get(`/${operator.accountId}/subscriptions/${view.platform_subscription}`);
    expect(subscription.body).toMatchObject({ status: "trialing", customer: view.platform_customer, trial_end: response.body.trial_end });
    const customer = await operator.client.get(`/${operator.accountId}/customers/${view.platform_customer}`);
    expect(customer.body.metadata).toEqual({ organization_id: merchant.organizationId });
  });

  it("is the organization's standing, the same for its live and sandbox accounts, and for publishable tokens", async () => {
    const merchant = await newMerchant();
    const live = await merchant.client.get(`/${merchant.accountId}/billing-status`);
    const sandbox = await api(merchant.sandboxSecret.token).get(`/${merchant.sandboxAccountId}/billing-status`);
    const publishable = await api(merchant.publishable.token).get(`/${merchant.accountId}/billing-status`);
    expect(sandbox.body).toEqual(live.body);
    expect(publishable.body).toEqual(live.body);
  });

  it("reports the subscription end when the platform subscription is set to cancel at its period end", async () => {
    const merchant = await newMerchant();
    const { platform_subscription: id } = await operatorView(merchant.accountId);
    const cancelling = await operator.client.post(`/${operator.accountId}/subscriptions/${id}/cancel`, { at_period_end: true });
    expect(cancelling.status).toBe(200);
    const status = (await merchant.client.get(`/${merchant.accountId}/billing-status`)).body;
    expect(status).toMatchObject({ billing_status: "trialing", subscription_end: cancelling.body.current_period_end, cit_allowed: true });
  });

  it("is cancelled, allowing nothing, once the platform subscription is cancelled", async () => {
    const merchant = await newMerchant();
    const { platform_subscription: id } = await operatorView(merchant.accountId);
    const cancelled = await operator.client.post(`/${operator.accountId}/subscriptions/${id}/cancel`, {});
    expect(cancelled.body.status).toBe("cancelled");
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body).toEqual({
      cit_allowed: false,
      mit_allowed: false,
      cit_processing_enabled: true,
      mit_processing_enabled: true,
      billing_status: "cancelled",
      trial_days_remaining: null,
      trial_end: cancelled.body.trial_end,
      subscription_end: cancelled.body.cancelled_at,
    });
  });

  it("is orphaned when the organization's platform customer is gone", async () => {
    const merchant = await newMerchant();
    const { platform_customer: customer } = await operatorView(merchant.accountId);
    expect((await operator.client.delete(`/${operator.accountId}/customers/${customer}`)).status).toBe(200);
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body).toMatchObject({
      billing_status: "orphaned",
      cit_allowed: false,
      mit_allowed: false,
      trial_end: null,
      subscription_end: null,
    });
  });

  it("is no_subscription for a platform customer without a subscription (an enrollment cut short)", async () => {
    const merchant = await newMerchant();
    const customer = await operator.client.post(`/${operator.accountId}/customers`, { email: "billing@example.com" });
    // What enrollment's first step records before it creates the subscription.
    await setOrganizationStanding(merchant.organizationId, { platformCustomerId: customer.body.id });
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body).toMatchObject({
      billing_status: "no_subscription",
      cit_allowed: false,
      mit_allowed: false,
    });
  });
});

describe("POST /{account_id}/billing-status (operators)", () => {
  it("switches CIT and MIT processing; *_allowed follow (DESIGN.md decision 12)", async () => {
    const merchant = await newMerchant();
    const read = async () => (await merchant.client.get(`/${merchant.accountId}/billing-status`)).body;
    expect(await operatorView(merchant.accountId, { cit_processing_enabled: false })).toMatchObject({
      organization: merchant.organizationId,
      cit_processing_enabled: false,
      cit_allowed: false,
      mit_allowed: true,
    });
    expect(await read()).toMatchObject({ cit_processing_enabled: false, cit_allowed: false, mit_processing_enabled: true, mit_allowed: true });
    await operatorView(merchant.accountId, { mit_processing_enabled: false, cit_processing_enabled: true });
    expect(await read()).toMatchObject({ cit_allowed: true, mit_allowed: false, mit_processing_enabled: false });
  });

  it("exempts an organization: exempt allows both, whatever its subscription", async () => {
    const merchant = await newMerchant();
    const view = await operatorView(merchant.accountId, { billing_exempt: true });
    expect(view).toMatchObject({ billing_status: "exempt", billing_exempt: true, cit_allowed: true, mit_allowed: true, trial_days_remaining: null });
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body.billing_status).toBe("exempt");
    await operatorView(merchant.accountId, { billing_exempt: false });
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body.billing_status).toBe("trialing");
  });

  it("never bills the operator's own organization (the platform's): it is exempt, with no platform customer", async () => {
    const own = await operator.client.get(`/${operator.accountId}/billing-status`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ billing_status: "exempt", cit_allowed: true, mit_allowed: true, trial_end: null });
    expect(await operatorView(operator.accountId)).toMatchObject({ billing_status: "exempt", platform_customer: null, platform_subscription: null });
  });

  it("refuses every token but an operator's, and changes nothing", async () => {
    const merchant = await newMerchant();
    const other = await newMerchant();
    for (const client of [merchant.client, api(merchant.publishable.token), other.client]) {
      expectProblem(await client.post(`/${merchant.accountId}/billing-status`, { cit_processing_enabled: false }), 403);
    }
    expectProblem(await api().post(`/${merchant.accountId}/billing-status`, {}), 401);
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body.cit_processing_enabled).toBe(true);
  });

  it("validates its body and answers 404 for an unknown account", async () => {
    const merchant = await newMerchant();
    const invalid = await operator.client.post(`/${merchant.accountId}/billing-status`, { cit_processing_enabled: "no" });
    expectProblem(invalid, 422);
    const unknown = await operator.client.post(`/${merchant.accountId.slice(0, -4)}zzzz/billing-status`, {});
    expectProblem(unknown, 404);
  });
});
