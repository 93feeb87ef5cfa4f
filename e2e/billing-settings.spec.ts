import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("tax rates are created, edited and archived in the dashboard, each save confirmed", async ({ page }) => {
  const merchant = await signUp(page, "Tax Rates");
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  await page.goto(`${base}/tax-rates`);
  await page.getByRole("button", { name: "New tax rate" }).click();
  const form = page.getByRole("form", { name: "New tax rate" });
  await form.getByLabel("Display name").fill("USt.");
  await form.getByLabel("Percentage").fill("101");
  await form.getByRole("button", { name: "Create tax rate" }).click();
  // The API's message, beside its field.
  await expect(form.locator("label", { hasText: "Percentage" }).getByRole("alert")).toContainText("at most 100");
  await form.getByLabel("Percentage").fill("19");
  await form.getByLabel("Country (optional)").fill("DE");
  await form.getByRole("button", { name: "Create tax rate" }).click();
  await expect(form.getByRole("status")).toContainText("Tax rate created: USt. 19 %");
  await expect(page.getByRole("link", { name: "USt. 19 %" }).first()).toBeVisible();

  await form.getByRole("status").getByRole("link", { name: "USt. 19 %" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("USt. 19 %");
  const edit = page.getByRole("form", { name: "Edit tax rate" });
  await edit.getByLabel("Display name").fill("MwSt.");
  await edit.getByRole("button", { name: "Save tax rate" }).click();
  await expect(edit.getByRole("status")).toHaveText("Saved: MwSt. 19 %.");

  await page.getByRole("button", { name: "Archive tax rate" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Archive" }).click();
  await expect(page.getByRole("button", { name: "Restore tax rate" })).toBeVisible();
  const server = api(await createToken(page, merchant, "Tax check"));
  const rates = (await server.get("/tax-rates")).body.items;
  expect(rates).toMatchObject([{ display_name: "MwSt.", percentage: 19, country: "DE", active: false }]);
});

test("a customer's address, VAT id and invoice language are entered and shown in the dashboard", async ({ page }) => {
  const merchant = await signUp(page, "Billing Details");
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  await page.goto(`${base}/customers`);
  await page.getByRole("button", { name: "New customer" }).click();
  const form = page.getByRole("form", { name: "New customer" });
  await form.getByLabel("Email").fill("lena@example.com");
  await form.getByLabel("Name (optional)").fill("Lena Schmidt");
  await form.getByLabel("Address line 1").fill("Hauptstraße 1");
  await form.getByLabel("Postal code").fill("10115");
  await form.getByLabel("City").fill("Berlin");
  await form.getByLabel("Country").fill("DE");
  await form.getByLabel("EU VAT id").fill("DE123");
  await form.getByLabel("Invoice language").selectOption("de");
  await form.getByRole("button", { name: "Create customer" }).click();
  await expect(form.getByRole("alert").first()).toContainText("VAT");
  await form.getByLabel("EU VAT id").fill("DE136695976");
  await form.getByRole("button", { name: "Create customer" }).click();
  await expect(page).toHaveURL(/\/customers\/cus_/);
  await expect(page.getByTestId("customer-address")).toContainText("Hauptstraße 1");
  await expect(page.getByTestId("customer-address")).toContainText("10115 Berlin");
  await expect(page.getByTestId("customer-tax-ids")).toHaveText("DE136695976");

  await page.getByRole("button", { name: "Edit customer" }).click();
  const edit = page.getByRole("form", { name: "Edit customer" });
  await expect(edit.getByLabel("Invoice language")).toHaveValue("de");
  await edit.getByLabel("City").fill("München");
  await edit.getByLabel("Postal code").fill("80331");
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(edit.getByRole("status")).toHaveText("Saved.");
  await expect(page.getByTestId("customer-address")).toContainText("80331 München");
});

test("a meter is created in the dashboard, the API's message beside its field", async ({ page }) => {
  const merchant = await signUp(page, "Meters");
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/meters`);
  await page.getByRole("button", { name: "New meter" }).click();
  const form = page.getByRole("form", { name: "New meter" });
  await form.getByLabel("Display name").fill("API calls");
  await form.getByLabel("Event name").fill("api call with spaces");
  await form.getByLabel("Aggregation").selectOption("sum");
  await form.getByRole("button", { name: "Create meter" }).click();
  await expect(form.locator("label", { hasText: "Event name" }).getByRole("alert")).toBeVisible();
  await form.getByLabel("Event name").fill("api_call");
  await form.getByRole("button", { name: "Create meter" }).click();
  await expect(page).toHaveURL(/\/meters\/mtr_/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("API calls");
});
