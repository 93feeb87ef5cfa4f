import { expect, test } from "@playwright/test";
import { baseUrl, sessionApi, signUp } from "./fixtures";

/** The customer page lists the customer's entitlements with the event that granted each. */
test("customer page: entitlements with their source subscription and granting event", async ({ page }) => {
  const merchant = await signUp(page);
  const client = await sessionApi(page);
  const root: `/${string}` = `/${merchant.accountId}`;
  const ok = async (response: Promise<{ status: number; text: string; body: { id: string } & Record<string, unknown> }>) => {
    const result = await response;
    expect(result.status, result.text).toBeLessThan(300);
    return result.body;
  };
  const product = await ok(client.post(`${root}/products`, { name: "Pro" }));
  const price = await ok(client.post(`${root}/prices`, { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } }));
  const feature = await ok(client.post(`${root}/features`, { lookup_key: "advanced_reports", name: "Advanced reports" }));
  await ok(client.post(`${root}/products/${product.id}/features`, { feature: feature.id }));
  const customer = await ok(client.post(`${root}/customers`, { email: "ent-e2e@example.com" }));
  const subscription = await ok(client.post(`${root}/subscriptions`, { customer: customer.id, items: [{ price: price.id }] }));

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers/${customer.id}`);
  const list = page.getByTestId("entitlements");
  await expect(list).toContainText("advanced_reports");
  await expect(list.getByRole("link", { name: new RegExp(subscription.id.slice(0, 12)) })).toBeVisible();
  await expect(list.getByRole("link", { name: /^evt_/ })).toBeVisible();
});

/** Settings › Customer portal: an http: logo is refused with the API's message, an https: one is saved. */
test("settings: the customer portal section saves through the API and refuses an http: logo", async ({ page }) => {
  const merchant = await signUp(page);
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/settings`);
  const form = page.getByRole("form", { name: "Customer portal configuration" });
  await form.getByLabel("Pause and resume").check();
  await form.getByLabel("Logo URL").fill("http://acme.example/logo.png");
  await form.getByRole("button", { name: "Save portal settings" }).click();
  await expect(form.getByText(/https/).first()).toBeVisible();
  await form.getByLabel("Logo URL").fill("https://acme.example/logo.png");
  await form.getByLabel("Business name").fill("Acme");
  await expect(form.getByLabel("Plan changes")).toHaveValue("account_policy");
  await form.getByLabel("Plan changes").selectOption("upgrade_now_downgrade_at_period_end");
  await form.getByRole("button", { name: "Save portal settings" }).click();
  await expect(form.getByRole("status")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByRole("form", { name: "Customer portal configuration" }).getByLabel("Logo URL")).toHaveValue("https://acme.example/logo.png");
  await expect(page.getByRole("form", { name: "Customer portal configuration" }).getByLabel("Pause and resume")).toBeChecked();
  await expect(page.getByRole("form", { name: "Customer portal configuration" }).getByLabel("Plan changes")).toHaveValue("upgrade_now_downgrade_at_period_end");
});
