import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("invoices: the list, one invoice's page, and its timeline", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);

  // The merchant's server bills a customer twice a one-time price of $15.00, and finalizes it.
  const customer = await server.post("/customers", { email: "jenny@example.com" });
  expect(customer.status).toBe(201);
  const product = await server.post("/products", { name: "Consulting hour" });
  expect(product.status).toBe(201);
  const price = await server.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: 1500, type: "one_time" });
  expect(price.status).toBe(201);
  const created = await server.post("/invoices", { customer: customer.body.id, currency: "usd", lines: [{ price: price.body.id, quantity: 2 }] });
  expect(created.status).toBe(201);
  const invoiceId: string = created.body.id;
  const finalized = await server.post(`/invoices/${invoiceId}/finalize`);
  expect(finalized.status).toBe(200);

  // It shows in the list, reached from the navigation, as open for $30.00.
  await page.getByRole("link", { name: "Invoices", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/invoices$`));
  await expect(page.getByRole("heading", { name: "Invoices" })).toBeVisible();
  const list = page.getByRole("table", { name: "Invoices" });
  const row = list.getByRole("row").filter({ hasText: invoiceId });
  await expect(row.getByText("open", { exact: true })).toBeVisible();
  await expect(row).toContainText("$30.00");
  // The customer by email (no name given), linked to their page.
  await expect(row.getByRole("link", { name: "jenny@example.com" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/customers/${customer.body.id}`);

  // The status filter lives in the URL and narrows the list.
  await page.getByLabel("Status").selectOption("paid");
  await expect(page).toHaveURL(/\?status=paid$/);
  await expect(page.getByText("No paid invoices.")).toBeVisible();
  await page.getByLabel("Status").selectOption("open");
  await expect(list.getByRole("row").filter({ hasText: invoiceId })).toBeVisible();

  // One invoice's page: its id as the heading and its lines.
  await list.getByRole("link", { name: invoiceId }).click();
  await expect(page).toHaveURL(new RegExp(`/invoices/${invoiceId}$`));
  await expect(page.getByRole("heading", { name: invoiceId })).toBeVisible();
  const lines = page.getByRole("table", { name: "Lines" });
  const line = lines.getByRole("row").filter({ hasText: price.body.id });
  await expect(line.getByRole("cell").nth(1)).toHaveText("2");
  await expect(line).toContainText("$15.00");
  await expect(line).toContainText("$30.00");

  // Its timeline: the events page filtered to this invoice.
  await page.getByRole("link", { name: "View timeline" }).click();
  await expect(page).toHaveURL(new RegExp(`/events\\?aggregate_id=${invoiceId}$`));
  await expect(page.getByRole("table", { name: "Events" })).toContainText("invoice.finalized");

  // An unknown id says so plainly.
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/invoices/in_prod_00000000000000000000000000000`);
  await expect(page.getByRole("heading", { name: "No such invoice" })).toBeVisible();
  await page.getByRole("link", { name: "Back to invoices" }).click();
  await expect(page.getByRole("table", { name: "Invoices" })).toContainText(invoiceId);
});
