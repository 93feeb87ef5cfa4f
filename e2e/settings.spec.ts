import { expect, test } from "@playwright/test";
import { baseUrl, signUp } from "./fixtures";

/** Changing the password ends every other session at once and keeps the one that changed it. */
test("changing the password signs out other sessions, keeps this one", async ({ page, browser }) => {
  const merchant = await signUp(page);
  const newPassword = `new-${merchant.password}`;

  // A second session of the same user, e.g. another device.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto(`${baseUrl()}/signin`);
  await expect(otherPage.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await otherPage.getByLabel("Email").fill(merchant.email);
  await otherPage.getByLabel("Password").fill(merchant.password);
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await expect(otherPage).toHaveURL(new RegExp(`/accounts/${merchant.accountId}$`));

  await page.getByRole("link", { name: "Settings", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Change password" })).toBeEnabled();
  await page.getByLabel("Current password").fill("not my password");
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("This is not your current password.")).toBeVisible();
  await page.getByLabel("Current password").fill(merchant.password);
  await page.getByLabel("New password").fill("short");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Use at least 10 characters.")).toBeVisible();

  await page.getByLabel("Current password").fill(merchant.password);
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Password changed." })).toBeVisible();

  // This session goes on (a full load, so the server reads the re-issued cookie)…
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers`);
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/customers$`));
  // …the other one has ended.
  await otherPage.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers`);
  await expect(otherPage).toHaveURL(/\/signin/);

  // The old password no longer signs in; the new one does.
  await expect(otherPage.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await otherPage.getByLabel("Email").fill(merchant.email);
  await otherPage.getByLabel("Password").fill(merchant.password);
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await expect(otherPage.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await otherPage.getByLabel("Password").fill(newPassword);
  await otherPage.getByRole("button", { name: "Sign in" }).click();
  await expect(otherPage).toHaveURL(new RegExp(`/accounts/${merchant.accountId}$`));
  await other.close();
});
