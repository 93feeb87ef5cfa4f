import { expect, test, type Page } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/** At phone width the page itself must not scroll sideways (wide tables scroll in their own box). */
async function expectNoSideScroll(page: Page, width: number) {
  if (width > 390) return;
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth).toBeLessThanOrEqual(390);
}

test("relations: a customer's subscriptions, invoices, payments and discount; a product's prices; names for ids; the unpaid invoice", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;

  // A live account without a payment method: the first invoice stays open, unpaid.
  const customer = await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" });
  expect(customer.status).toBe(201);
  const product = await server.post("/products", { name: "Pro plan" });
  expect(product.status).toBe(201);
  const price = await server.post("/prices", {
    product: product.body.id,
    nickname: "Pro monthly",
    currency: "eur",
    unit_amount_atom: 1500,
    type: "recurring",
    recurring: { interval: "month" },
  });
  expect(price.status).toBe(201);
  const subscription = await server.post("/subscriptions", { customer: customer.body.id, items: [{ price: price.body.id }] });
  expect(subscription.status).toBe(201);
  expect(subscription.body.status).toBe("active");
  const subscriptionId: string = subscription.body.id;
  const invoiceId: string = subscription.body.latest_invoice;
  const invoice = await server.get(`/invoices/${invoiceId}`);
  expect(invoice.body.status).toBe("open");
  const plan = "Pro plan · Pro monthly · €15.00 / month";

  for (const width of [1280, 390]) {
    await test.step(`at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });

      // The customer's page lists what belongs to them, each linked to its page.
      await page.goto(`${base}/customers/${customer.body.id}`);
      await expect(page.getByRole("heading", { name: "jenny@example.com" })).toBeVisible();
      const subscriptions = page.getByRole("table", { name: "Subscriptions" });
      const subscriptionRow = subscriptions.getByRole("row").filter({ hasText: subscriptionId });
      // Linked by what it is for (the product), its id beside it, never the link's label.
      const subscriptionLink = subscriptionRow.locator(`a[href="/accounts/${merchant.accountId}/subscriptions/${subscriptionId}"]`);
      await expect(subscriptionLink).toHaveText("Pro plan");
      await expect(subscriptionRow).toContainText(plan);
      await expect(subscriptionRow.getByText("active", { exact: true })).toBeVisible();
      const invoiceRow = page.getByRole("table", { name: "Invoices" }).getByRole("row").filter({ hasText: invoiceId });
      await expect(invoiceRow.getByRole("link", { name: invoiceId })).toHaveAttribute("href", `/accounts/${merchant.accountId}/invoices/${invoiceId}`);
      await expect(invoiceRow.getByText("open", { exact: true })).toBeVisible();
      await expect(invoiceRow).toContainText("€15.00");
      await expect(page.getByRole("heading", { name: "Payments" })).toBeVisible();
      await expect(page.getByText("No payment intents yet.")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Discount" })).toBeVisible();
      await expect(page.getByText("No discount.")).toBeVisible();
      await expectNoSideScroll(page, width);

      // The product's page lists its prices: nickname, amount in its currency, interval, status.
      await page.goto(`${base}/products/${product.body.id}`);
      await expect(page.getByRole("heading", { name: "Pro plan" })).toBeVisible();
      const priceRow = page.getByRole("table", { name: "Prices" }).getByRole("row").filter({ hasText: "Pro monthly" });
      await expect(priceRow.getByRole("link", { name: "€15.00 / month" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/prices/${price.body.id}`);
      await expect(priceRow.getByText("active", { exact: true })).toBeVisible();
      await expectNoSideScroll(page, width);

      // The price's page names its product rather than showing its id.
      await page.goto(`${base}/prices/${price.body.id}`);
      await expect(page.getByRole("heading", { name: "Pro monthly · €15.00 / month" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Pro plan" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/products/${product.body.id}`);

      // The subscription's page: the customer by name, the plan by name, and the unpaid invoice.
      await page.goto(`${base}/subscriptions/${subscriptionId}`);
      await expect(page.getByRole("heading", { name: subscriptionId })).toBeVisible();
      await expect(page.getByRole("link", { name: "Jenny Rosen" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/customers/${customer.body.id}`);
      await expect(page.getByRole("table", { name: "Items" })).toContainText(plan);
      const notice = page.getByRole("status", { name: "Unpaid invoice" });
      await expect(notice).toContainText("€15.00");
      await expectNoSideScroll(page, width);
      await notice.getByRole("link", { name: "View unpaid invoice" }).click();
      await expect(page).toHaveURL(`${base}/invoices/${invoiceId}`);
      await expect(page.getByRole("heading", { name: invoiceId })).toBeVisible();

      // The invoice's page names its customer and its line's price.
      await expect(page.getByRole("link", { name: "Jenny Rosen" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/customers/${customer.body.id}`);
      await expect(page.getByRole("table", { name: "Lines" })).toContainText("Pro monthly · €15.00 / month");
      const invoiceSubscription = page.locator(`a[href="/accounts/${merchant.accountId}/subscriptions/${subscriptionId}"]`);
      await expect(invoiceSubscription).toHaveText("Pro plan");
      await expectNoSideScroll(page, width);
    });
  }
});
