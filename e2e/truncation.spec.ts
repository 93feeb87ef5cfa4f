import { expect, test, type Locator } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/** Cut to one line with the whole text on hover, and no wider than the page. */
async function expectTruncated(cell: Locator, text: string) {
  await expect(cell).toHaveAttribute("title", text);
  await expect(cell).toHaveCSS("text-overflow", "ellipsis");
  const { scrollWidth, clientWidth } = await cell.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
  expect(scrollWidth).toBeGreaterThan(clientWidth);
}

test("long names truncate with the full text on hover, and never push Revoke out of view", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const merchant = await signUp(page);
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const longName = `Nightly-reconciliation-job-for-the-finance-team-${"x".repeat(52)}`;
  expect(longName).toHaveLength(100);
  const server = api(await createToken(page, merchant, longName));

  // Tokens: the 100-character name is cut, Revoke stays on screen and works.
  const tokens = page.getByRole("table", { name: "API tokens" });
  const row = tokens.getByRole("row").filter({ has: page.getByTitle(longName) });
  await expectTruncated(row.getByTitle(longName), longName);
  const revoke = row.getByRole("button", { name: "Revoke" });
  await expect(revoke).toBeInViewport({ ratio: 1 });
  await revoke.click();
  await expect(page.getByRole("dialog", { name: "Revoke this token?" })).toContainText(longName);
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

  // Endpoints: a long URL and description.
  const url = `https://hooks.example.com/${"very-long-path-segment/".repeat(8)}receive`;
  const description = `Receives everything for the ${"reporting ".repeat(10)}pipeline`;
  await server.post(`/${merchant.accountId}/webhook-endpoints`, { url, events: ["*"], description });
  await page.goto(`${base}/webhooks`);
  const endpoints = page.getByRole("table", { name: "Webhook endpoints" });
  await expectTruncated(endpoints.getByTitle(url), url);
  await expectTruncated(endpoints.getByTitle(description), description);
  // The row's last columns stay within the page's width.
  const enabled = endpoints.getByText("Enabled");
  // Scroll the page down to the table, never the table sideways (that would hide an overflow).
  await endpoints.evaluate((table) => window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY - 100));
  await expect(enabled).toBeInViewport({ ratio: 1 });

  // Customers and products: long names.
  const customerName = `Ada ${"Lovelace-Byron-King ".repeat(6)}Esq.`;
  await server.post("/customers", { email: "ada@example.com", name: customerName });
  await page.goto(`${base}/customers`);
  await expectTruncated(page.getByRole("table", { name: "Customers" }).getByTitle(customerName), customerName);
  const productName = `Premium ${"enterprise ".repeat(8)}support plan`;
  await server.post("/products", { name: productName });
  await page.goto(`${base}/products`);
  await expectTruncated(page.getByRole("table", { name: "Products" }).getByTitle(productName), productName);
});
