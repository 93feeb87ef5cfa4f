import { expect, test } from "@playwright/test";
import { baseUrl, signUp } from "./fixtures";

test("catalog: create a product and its price, a problem shown beside its field, archive with confirmation", async ({ page }) => {
  const merchant = await signUp(page);
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;

  // From the navigation to an empty product list.
  await page.getByRole("link", { name: "Products", exact: true }).click();
  await expect(page).toHaveURL(`${base}/products`);
  await expect(page.getByRole("heading", { name: "Products", level: 1 })).toBeVisible();
  await expect(page.getByText("No products yet.")).toBeVisible();

  // Create a product: a confirmation links to its page, with a way to its timeline.
  await page.getByRole("button", { name: "New product" }).click();
  const productForm = page.getByRole("form", { name: "New product" });
  await productForm.getByLabel("Name").fill("Coffee beans — a very long product name that goes on and on and on");
  await page.getByRole("button", { name: "Create product" }).click();
  await expect(productForm.getByLabel("Name")).toHaveValue("");
  await productForm.getByRole("status").getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`${base}/products/prod_[a-z]+_[0-9a-z]+$`));
  const productId = page.url().split("/").pop()!;
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Coffee beans — a very long product name that goes on and on and on");
  await expect(page.getByRole("link", { name: "Event timeline" })).toHaveAttribute("href", `/accounts/${merchant.accountId}/events?aggregate_id=${productId}`);

  // A price the API refuses: its problem stands beside the field, in plain words.
  const priceForm = page.getByRole("form", { name: "Add a price" });
  await priceForm.getByLabel("Amount").fill("12.50");
  await priceForm.getByLabel("Currency").fill("usdollars");
  await priceForm.getByRole("button", { name: "Create price" }).click();
  await expect(priceForm.getByRole("alert")).toBeVisible();
  await expect(priceForm.locator("label", { hasText: "Currency" }).getByRole("alert")).toBeVisible();
  await expect(page).toHaveURL(`${base}/products/${productId}`);

  // Corrected, the price is made and shown as money per interval.
  await priceForm.getByLabel("Currency").fill("usd");
  await priceForm.getByLabel("Billing").selectOption("month");
  // The same price in two more currencies, each read in its own minor units (JPY has none).
  await priceForm.getByLabel("Other currencies (optional)").fill("eur 11.50; JPY 1600");
  await priceForm.getByRole("button", { name: "Create price" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/prices/price_[a-z]+_[0-9a-z]+$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("$12.50 / month");
  await expect(page.getByTestId("raw-json")).toContainText('"unit_amount_atom": 1250');
  await expect(page.getByTestId("raw-json")).toContainText('"unit_amount_atom": 1150');
  await expect(page.getByTestId("raw-json")).toContainText('"unit_amount_atom": 1600');

  // More currencies later: one it bills in already is refused beside the field, a new one is added.
  const addForm = page.getByRole("form", { name: "Add currencies" });
  await addForm.getByLabel("Currencies to add").fill("eur 10.00");
  await addForm.getByRole("button", { name: "Add currencies" }).click();
  await expect(addForm.locator("label", { hasText: "Currencies to add" }).getByRole("alert")).toContainText("already bills in");
  await expect(page.getByTestId("raw-json")).not.toContainText('"gbp"');
  await addForm.getByLabel("Currencies to add").fill("GBP 10.00");
  await addForm.getByRole("button", { name: "Add currencies" }).click();
  await expect(page.getByTestId("raw-json")).toContainText('"gbp"');
  await expect(page.getByTestId("raw-json")).toContainText('"unit_amount_atom": 1000');

  // Archiving asks first; cancelling changes nothing.
  await page.getByRole("button", { name: "Archive price" }).click();
  const dialog = page.getByRole("dialog", { name: "Archive this price?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("raw-json")).toContainText('"active": true');
  await page.getByRole("button", { name: "Archive price" }).click();
  await page.getByRole("dialog", { name: "Archive this price?" }).getByRole("button", { name: "Archive" }).click();
  await expect(page.getByRole("button", { name: "Restore price" })).toBeVisible();
  await expect(page.getByTestId("raw-json")).toContainText('"active": false');

  // The price list filters through the URL: archived prices of this product.
  await page.goto(`${base}/prices?product=${productId}&active=false`);
  await expect(page.getByLabel("Status")).toHaveValue("false");
  await expect(page.getByLabel("Product")).toHaveValue(productId);
  const prices = page.getByRole("table", { name: "Prices" });
  await expect(prices.getByRole("row")).toHaveCount(2);
  await expect(prices).toContainText("$12.50 / month");
  await page.getByLabel("Status").selectOption("true");
  await expect(page).toHaveURL(`${base}/prices?product=${productId}&active=true`);
  await expect(page.getByText("No prices match these filters.")).toBeVisible();

  // The product list truncates the long name and keeps it whole on hover.
  await page.goto(`${base}/products`);
  const name = page.getByRole("table", { name: "Products" }).getByTitle("Coffee beans — a very long product name that goes on and on and on");
  await expect(name).toHaveClass(/truncate/);
});

test("coupons: a percentage, and an amount off in three currencies with a problem shown beside its field", async ({ page }) => {
  const merchant = await signUp(page);
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  await page.goto(`${base}/coupons`);
  await page.getByRole("button", { name: "New coupon" }).click();
  const form = page.getByRole("form", { name: "New coupon" });
  const coupons = page.getByRole("table", { name: "Coupons" });
  // The amount's own field (its accessible name goes on with its hint), not the other currencies' one.
  const amountOff = form.getByLabel(/^Amount off(?! in)/);

  // A percentage: the amount fields are not asked for.
  await form.getByLabel("Name (optional)").fill("Spring sale");
  await expect(amountOff).toHaveCount(0);
  await form.getByLabel("Percent off").fill("25");
  await form.getByRole("button", { name: "Create coupon" }).click();
  await expect(form.getByRole("status")).toContainText("Coupon created");
  await expect(coupons.getByRole("row", { name: /Spring sale/ })).toContainText("25 %");

  // A fixed amount: its currency, and what it takes off in other currencies, each in its own minor units.
  await form.getByLabel("Name (optional)").fill("Welcome credit");
  await form.getByLabel("Discount").selectOption("amount");
  await expect(form.getByLabel("Percent off")).toHaveCount(0);
  await amountOff.fill("5.00");
  await form.getByLabel("Currency", { exact: true }).fill("usd");
  // An option in the coupon's own currency is refused beside the options' field; nothing is made.
  await form.getByLabel("Amount off in other currencies (optional)").fill("usd 4; eur 4.50");
  await form.getByRole("button", { name: "Create coupon" }).click();
  await expect(form.locator("label", { hasText: "Amount off in other currencies" }).getByRole("alert")).toContainText("own currency");
  await expect(coupons.getByRole("row", { name: /Welcome credit/ })).toHaveCount(0);

  await form.getByLabel("Amount off in other currencies (optional)").fill("eur 4.50; JPY 700");
  await form.getByRole("button", { name: "Create coupon" }).click();
  await expect(form.getByRole("status")).toContainText("Coupon created");
  await expect(coupons.getByRole("row", { name: /Welcome credit/ })).toContainText("$5.00 · €4.50 · ¥700");
  await form.getByRole("status").getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`${base}/coupons/`));
  const json = page.getByTestId("raw-json");
  await expect(json).toContainText('"amount_off_atom": 500');
  await expect(json).toContainText('"amount_off_atom": 450');
  await expect(json).toContainText('"amount_off_atom": 700');
  await expect(json).toContainText('"currency": "usd"');
});
