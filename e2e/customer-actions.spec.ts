import { expect, test } from "@playwright/test";
import { baseUrl, signUp } from "./fixtures";

test("customers: create and edit in the dashboard, search by name and by id, and pages that do not exist", async ({ page }) => {
  const merchant = await signUp(page);
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  await page.goto(`${base}/customers`);

  // A problem from the API stands beside its field; nothing is created.
  await page.getByRole("button", { name: "New customer" }).click();
  const form = page.getByRole("form", { name: "New customer" });
  await form.getByLabel("Email").fill("ada@lovelace.example");
  await form.getByLabel("Name (optional)").fill("x".repeat(300));
  await form.getByRole("button", { name: "Create customer" }).click();
  const nameError = form.locator("label", { hasText: "Name (optional)" }).getByRole("alert");
  await expect(nameError).toHaveText("At most 256 characters.");
  await expect(page).toHaveURL(`${base}/customers`);

  await form.getByLabel("Name (optional)").fill("Ada Lovelace");
  await form.getByRole("button", { name: "Create customer" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/customers/cus_[a-z]+_[0-9a-z]+$`));
  const customerId = page.url().split("/").pop()!;
  await expect(page.getByRole("heading", { name: "ada@lovelace.example" })).toBeVisible();

  // Edit: the new name shows at once.
  await page.getByRole("button", { name: "Edit customer" }).click();
  const edit = page.getByRole("form", { name: "Edit customer" });
  await expect(edit.getByLabel("Name")).toHaveValue("Ada Lovelace");
  await edit.getByLabel("Name").fill("Augusta Ada King");
  // Nothing is billed to her yet: her currency is open until set here or by a first invoice.
  await expect(page.getByText("Set by their first invoice or subscription")).toBeVisible();
  await expect(edit.getByLabel("Currency")).toHaveValue("");
  await edit.getByLabel("Currency").fill("EUR");
  await edit.getByRole("button", { name: "Save" }).click();
  // The form confirms the save and stays for the next change.
  await expect(edit.getByRole("status")).toHaveText("Saved.");
  await expect(page.getByText("Augusta Ada King", { exact: true })).toBeVisible();
  await expect(page.getByTestId("customer-currency")).toHaveText("EUR");

  // Search by the start of a name lists the matching customers.
  const search = page.getByRole("searchbox", { name: "Search" });
  await search.fill("augusta");
  await search.press("Enter");
  await expect(page).toHaveURL(`${base}/customers?q=augusta`);
  await expect(page.getByRole("table", { name: "Customers" }).getByRole("link", { name: "ada@lovelace.example" })).toBeVisible();
  await search.fill("nobody");
  await search.press("Enter");
  await expect(page.getByText(`No customer's email or name contains "nobody".`)).toBeVisible();

  // An id jumps straight to the object.
  await search.fill(customerId);
  await search.press("Enter");
  await expect(page).toHaveURL(`${base}/customers/${customerId}`);

  // A page this account does not have: a 404 inside the dashboard frame.
  const missing = await page.goto(`${base}/no-such-page`);
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  // An account that is not this user's: a styled 404 with a way back.
  const foreign = await page.goto(`${baseUrl()}/accounts/acc_prod_00000000000000000000000000000`);
  expect(foreign?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your dashboard" })).toBeVisible();
});
