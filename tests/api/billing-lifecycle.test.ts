import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type Client, apiRoot } from "../helpers/api";
import { createMigratedDatabase } from "../helpers/database";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";

const run = promisify(execFile);
const DAY = 24 * 60 * 60 * 1000;

/**
 * The whole lifecycle of a merchant's billing status, driven by the platform's own subscription
 * and the test clock. It needs its own app and database: the platform bills from its sandbox
 * account here (PLATFORM_BILLING_MODE=sandbox), so that its clock can be advanced, and advancing
 * it moves every merchant's platform subscription.
 */
describe("billing status across trial → active → past_due → cancelled", () => {
  let app: RunningApp;
  let database: Awaited<ReturnType<typeof createMigratedDatabase>>;
  let merchant: Client;
  let merchantAccount: string;
  let operator: Client;
  let platformAccount: string;

  beforeAll(async () => {
    database = await createMigratedDatabase("lifecycle");
    // Platform billing on (off by default), for the app and for the seed that enrolls the merchant.
    const billing = { PLATFORM_BILLING: "on", PLATFORM_BILLING_MODE: "sandbox" };
    const env = { ...process.env, DATABASE_URL: database.url, ...billing };
    app = await startApp({ DATABASE_URL: database.url, ...billing });
    const base = apiRoot(app.baseUrl);
    // As an operator sets it up: the seed makes a merchant organization, `npm run platform` an operator token.
    const seeded = JSON.parse((await run("npm", ["run", "--silent", "seed", "--", "--json"], { cwd: PROJECT_ROOT, env })).stdout);
    const token = JSON.parse((await run("npm", ["run", "--silent", "platform", "--", "token", "--json"], { cwd: PROJECT_ROOT, env })).stdout);
    merchant = api(seeded.secret_token, base);
    merchantAccount = seeded.account_id;
    operator = api(token.token, base);
    platformAccount = token.account_id;
  });
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  const status = async () => {
    const response = await merchant.get(`/${merchantAccount}/billing-status`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const advanceBy = async (ms: number) => {
    const clock = await operator.get(`/${platformAccount}/test-clock`);
    const response = await operator.post(`/${platformAccount}/test-clock/advance`, { to: new Date(Date.parse(clock.body.now) + ms).toISOString() });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  it("follows the platform subscription, day by day, on the platform account's clock", async () => {
    const start = await status();
    expect(start).toMatchObject({ billing_status: "trialing", trial_days_remaining: 14, cit_allowed: true, mit_allowed: true, subscription_end: null });

    const view = await operator.post(`/${merchantAccount}/billing-status`, {});
    const subscriptionId: string = view.body.platform_subscription;
    const subscription = () => operator.get(`/${platformAccount}/subscriptions/${subscriptionId}`).then((r) => r.body);
    // The merchant saved a card: renewals collect automatically.
    const withCard = await operator.post(`/${platformAccount}/subscriptions/${subscriptionId}`, { default_payment_method: "pm_sandbox_succeeds" });
    expect(withCard.status, withCard.text).toBe(200);

    await advanceBy(5 * DAY);
    expect(await status()).toMatchObject({ billing_status: "trialing", trial_days_remaining: 9, trial_end: start.trial_end });

    // Past the trial end: the first invoice is collected and the subscription is active.
    await advanceBy(10 * DAY);
    const active = await subscription();
    expect(active.status).toBe("active");
    const firstInvoice = await operator.get(`/${platformAccount}/invoices/${active.latest_invoice}`);
    expect(firstInvoice.body).toMatchObject({ status: "paid", due_amount_atom: 0 });
    expect(await status()).toEqual({
      cit_allowed: true,
      mit_allowed: true,
      cit_processing_enabled: true,
      mit_processing_enabled: true,
      billing_status: "active",
      trial_days_remaining: null,
      trial_end: start.trial_end,
      subscription_end: null,
    });

    // The card starts failing: the next renewal cannot be collected → past due: CIT only.
    await operator.post(`/${platformAccount}/subscriptions/${subscriptionId}`, { default_payment_method: "pm_sandbox_declined" });
    await operator.post(`/${platformAccount}/test-clock/advance`, { to: new Date(Date.parse(active.current_period_end) + 60_000).toISOString() });
    const pastDue = await subscription();
    expect(pastDue.status).toBe("past_due");
    expect(await status()).toMatchObject({ billing_status: "past_due", cit_allowed: true, mit_allowed: false, subscription_end: null });

    // Dunning gives up: the subscription is cancelled and the organization may process nothing.
    await advanceBy(30 * DAY);
    const cancelled = await subscription();
    expect(cancelled.status).toBe("cancelled");
    const unpaid = await operator.get(`/${platformAccount}/invoices/${pastDue.latest_invoice}`);
    expect(unpaid.body.status).toBe("uncollectible");
    expect(await status()).toMatchObject({
      billing_status: "cancelled",
      cit_allowed: false,
      mit_allowed: false,
      trial_days_remaining: null,
      subscription_end: cancelled.cancelled_at,
    });

    // Every step is in the platform subscription's timeline.
    const timeline = await operator.get(`/${platformAccount}/events?aggregate_id=${subscriptionId}&limit=100`);
    const types = timeline.body.items.map((event: { type: string }) => event.type).reverse();
    expect(types[0]).toBe("customer.subscription.created");
    expect(types).toContain("customer.subscription.trial_will_end");
    expect(types.at(-1)).toBe("customer.subscription.cancelled");
    const statuses = timeline.body.items.map((event: { data: { status: string } }) => event.data.status).reverse();
    expect([...new Set(statuses)]).toEqual(["trialing", "active", "past_due", "cancelled"]);
  });
});
