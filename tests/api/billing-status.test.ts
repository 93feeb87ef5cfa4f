import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant, setOrganizationStanding } from "../helpers/merchant";

const DAY = 24 * 60 * 60 * 1000;

describe("GET /{account_id}/billing-status", () => {
  it("has exactly the spec's shape; a new organization is trialing", async () => {
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
  });

  it("is the organization's standing, the same for its live and sandbox accounts", async () => {
    const merchant = await newMerchant();
    const live = await merchant.client.get(`/${merchant.accountId}/billing-status`);
    const sandbox = await api(merchant.sandboxSecret.token).get(`/${merchant.sandboxAccountId}/billing-status`);
    expect(sandbox.body).toEqual(live.body);
  });

  // DESIGN.md decision 12.
  const table = [
    { status: "active", cit: true, mit: true },
    { status: "trialing", cit: true, mit: true },
    { status: "exempt", cit: true, mit: true },
    { status: "past_due", cit: true, mit: false },
    { status: "cancelled", cit: false, mit: false },
    { status: "no_subscription", cit: false, mit: false },
    { status: "orphaned", cit: false, mit: false },
  ] as const;
  for (const row of table) {
    it(`derives cit/mit for ${row.status}, gated by the processing switches`, async () => {
      const merchant = await newMerchant();
      const read = async () => (await merchant.client.get(`/${merchant.accountId}/billing-status`)).body;
      await setOrganizationStanding(merchant.organizationId, { billingStatus: row.status });
      expect(await read()).toMatchObject({ billing_status: row.status, cit_allowed: row.cit, mit_allowed: row.mit });
      await setOrganizationStanding(merchant.organizationId, { citProcessingEnabled: false });
      expect(await read()).toMatchObject({ cit_allowed: false, mit_allowed: row.mit, cit_processing_enabled: false });
      await setOrganizationStanding(merchant.organizationId, { mitProcessingEnabled: false });
      expect(await read()).toMatchObject({ cit_allowed: false, mit_allowed: false, mit_processing_enabled: false });
    });
  }

  it("counts trial days remaining and reports the subscription end", async () => {
    const merchant = await newMerchant();
    const trialEnd = new Date(Date.now() + 2.5 * DAY);
    const subscriptionEnd = new Date(Date.now() + 30 * DAY);
    await setOrganizationStanding(merchant.organizationId, { billingStatus: "trialing", trialEnd, subscriptionEnd });
    const body = (await merchant.client.get(`/${merchant.accountId}/billing-status`)).body;
    expect(body).toMatchObject({
      trial_days_remaining: 3,
      trial_end: trialEnd.toISOString(),
      subscription_end: subscriptionEnd.toISOString(),
    });
    await setOrganizationStanding(merchant.organizationId, { billingStatus: "active" });
    expect((await merchant.client.get(`/${merchant.accountId}/billing-status`)).body.trial_days_remaining).toBeNull();
  });
});
