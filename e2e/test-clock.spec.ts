import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("sandbox test clock: a month passes from the overview and the trial renews", async ({ page }) => {
  const merchant = await signUp(page);
  // Live accounts have no test clock.
  await expect(page.getByRole("heading", { name: "Test clock (sandbox)" })).toHaveCount(0);

  await page.getByLabel("Account").selectOption({ label: "Sandbox: Acme (sandbox)" });
  await page.waitForURL((url) => /^\/accounts\/acc_[a-z]+_[0-9a-z]+$/.test(url.pathname) && !url.pathname.includes(merchant.accountId));
  const sandbox = { ...merchant, accountId: new URL(page.url()).pathname.split("/")[2]! };
  expect(sandbox.accountId).not.toBe(merchant.accountId);
  const server = api(await createToken(page, sandbox, "Sandbox server"));

  // A customer on a 7-day trial of a monthly price, paying with a sandbox card.
  const customer = await server.post("/customers", { email: "jenny@example.com" });
  const product = await server.post("/products", { name: "Pro plan" });
  const price = await server.post("/prices", {
    product: product.body.id,
    currency: "usd",
    unit_amount_atom: 2000,
    type: "recurring",
    recurring: { interval: "month" },
  });
  const created = await server.post("/subscriptions", {
    customer: customer.body.id,
    items: [{ price: price.body.id }],
    trial_period_days: 7,
    default_payment_method: "pm_sandbox_succeeds",
  });
  expect(created.status).toBe(201);

  await page.goto(`${baseUrl()}/accounts/${sandbox.accountId}`);
  const card = page.locator("section", { has: page.getByRole("heading", { name: "Test clock (sandbox)" }) });
  const before = await card.getByTestId("clock-now").textContent();
  await card.getByRole("button", { name: "+1 month" }).click();
  await expect(card.getByRole("status")).toContainText(/Advanced: \d+ transitions ran\./);
  await expect(card.getByTestId("clock-now")).not.toHaveText(before ?? "");

  // The trial ended on the way: the subscription is active with its first invoice paid.
  const subscription = await server.get(`/subscriptions/${created.body.id}`);
  expect(subscription.body.status).toBe("active");
  const invoice = await server.get(`/invoices/${subscription.body.latest_invoice}`);
  expect(invoice.body.status).toBe("paid");
  await page.goto(`${baseUrl()}/accounts/${sandbox.accountId}/subscriptions/${created.body.id}`);
  await expect(page.getByText("active", { exact: true }).first()).toBeVisible();
});
