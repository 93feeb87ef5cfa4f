import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("subscriptions: the list, one subscription's page, its invoice and its timeline", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);

  // The merchant's server subscribes a customer to a $20.00 monthly price, without a trial.
  const customer = await server.post("/customers", { email: "jenny@example.com" });
  expect(customer.status).toBe(201);
  const product = await server.post("/products", { name: "Pro plan" });
  expect(product.status).toBe(201);
  const price = await server.post("/prices", {
    product: product.body.id,
    currency: "usd",
    unit_amount_atom: 2000,
    type: "recurring",
    recurring: { interval: "month" },
  });
  expect(price.status).toBe(201);
  const created = await server.post("/subscriptions", { customer: customer.body.id, items: [{ price: price.body.id }] });
  expect(created.status).toBe(201);
  const subscriptionId: string = created.body.id;
  const invoiceId: string = created.body.latest_invoice;
  expect(invoiceId).toBeTruthy();

  // It shows in the list, reached from the navigation, as active.
  await page.getByRole("link", { name: "Subscriptions", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/subscriptions$`));
  await expect(page.getByRole("heading", { name: "Subscriptions" })).toBeVisible();
  const list = page.getByRole("table", { name: "Subscriptions" });
  const row = list.getByRole("row").filter({ hasText: subscriptionId });
  await expect(row.getByText("active", { exact: true })).toBeVisible();
  // The customer by email (no name given), linked to their page.
  await expect(row.getByRole("link", { name: "jenny@example.com" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/customers/${customer.body.id}`);
  // The plan: product, price and interval.
  await expect(row).toContainText("Pro plan · $20.00 / month");

  // The status filter lives in the URL and narrows the list.
  await page.getByLabel("Status").selectOption("paused");
  await expect(page).toHaveURL(/\?status=paused$/);
  await expect(page.getByText("No paused subscriptions.")).toBeVisible();
  await page.getByLabel("Status").selectOption("active");
  await expect(list.getByRole("row").filter({ hasText: subscriptionId })).toBeVisible();

  // One subscription's page: its id as the heading and its items.
  // Linked by its product ("Pro plan"), not by its id, which stands beside the link.
  const link = list.locator(`a[href="/accounts/${merchant.accountId}/subscriptions/${subscriptionId}"]`);
  await expect(link).toHaveText("Pro plan");
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/subscriptions/${subscriptionId}$`));
  await expect(page.getByRole("heading", { name: subscriptionId })).toBeVisible();
  const item = page.getByRole("table", { name: "Items" }).getByRole("row").filter({ hasText: price.body.id });
  await expect(item.getByRole("cell").nth(1)).toHaveText("1");

  // The latest invoice leads to its page, open for the first period.
  await page.getByRole("link", { name: invoiceId }).click();
  await expect(page).toHaveURL(new RegExp(`/invoices/${invoiceId}$`));
  await expect(page.getByRole("heading", { name: invoiceId })).toBeVisible();
  await expect(page.getByText("open", { exact: true })).toBeVisible();

  // Back on the subscription, its timeline: the events page filtered to it.
  await page.goBack();
  await expect(page.getByRole("heading", { name: subscriptionId })).toBeVisible();
  await page.getByRole("link", { name: "View timeline" }).click();
  await expect(page).toHaveURL(new RegExp(`/events\\?aggregate_id=${subscriptionId}$`));
  await expect(page.getByRole("table", { name: "Events" })).toContainText("customer.subscription.created");

  // An unknown id says so plainly.
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/subscriptions/sub_prod_00000000000000000000000000000`);
  await expect(page.getByRole("heading", { name: "No such subscription" })).toBeVisible();
  await page.getByRole("link", { name: "Back to subscriptions" }).click();
  await expect(page.getByRole("table", { name: "Subscriptions" })).toContainText(subscriptionId);
});
