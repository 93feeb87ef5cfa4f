import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createApiClient, apiRoot } from "../tests/helpers/api-client";
import { bypassHeaders } from "./bypass";
import { baseUrl, signUp } from "./fixtures";

test("signed out, the root and every dashboard page lead to the sign-in page", async ({ page }) => {
  await page.goto(baseUrl());
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  const response = await page.goto(`${baseUrl()}/accounts/acc_prod_00000000000000000000000000000/events`);
  expect(response?.url()).toMatch(/\/signin/);
  expect((await createApiClient(apiRoot(baseUrl()), undefined, bypassHeaders()).get("/acc_prod_00000000000000000000000000000/events")).status).toBe(401);
});

test("sign in, a wrong password, sign out", async ({ page }) => {
  const merchant = await signUp(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  // The form is usable once hydrated (its button is disabled until then).
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();

  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();

  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}$`));
  // Live and sandbox, switchable from every page; sandbox is marked.
  await page.getByRole("link", { name: "Events", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/events$`));
  await page.getByLabel("Account", { exact: true }).selectOption({ index: 1 });
  // The other account, same section.
  await expect(page).toHaveURL(new RegExp(`/accounts/(?!${merchant.accountId})acc_[a-z]+_[0-9a-z]+/events$`));
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  for (const name of ["API tokens", "Webhooks", "Events"]) {
    await expect(page.getByRole("link", { name, exact: true })).toBeVisible();
  }
});

test("a hostile callbackUrl does not leave the site: signing in lands on the dashboard", async ({ page }) => {
  const merchant = await signUp(page);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  // Protocol-relative, as a phishing link spells it; the browser would resolve it to that host.
  await page.goto(`${baseUrl()}/signin?callbackUrl=%2F%2Fattacker.example%2Fphish`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await page.getByLabel("Email").fill(merchant.email);
  await page.getByLabel("Password").fill(merchant.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/accounts/"));
  expect(new URL(page.url()).origin).toBe(new URL(baseUrl()).origin);
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}$`));
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
});

test("a hostile callbackUrl on the sign-up page does not leave the site either", async ({ page }) => {
  // Backslash form: browsers read `/\host` as `//host`.
  await page.goto(`${baseUrl()}/signup?callbackUrl=%2F%5Cattacker.example%2Fphish`);
  await expect(page.getByRole("button", { name: "Create account" })).toBeEnabled();
  await page.getByLabel("Your name").fill("Ada Merchant");
  await page.getByLabel("Company").fill("Acme");
  await page.getByLabel("Email").fill(`e2e-${randomBytes(6).toString("hex")}@example.com`);
  await page.getByLabel("Password").fill("correct horse battery staple");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/accounts/"));
  expect(new URL(page.url()).origin).toBe(new URL(baseUrl()).origin);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
});

test("a new organization is not billed by default: the overview says payments are allowed, CIT and MIT explained on hover", async ({ page }) => {
  await signUp(page);
  const card = page.locator("section").filter({ has: page.getByRole("heading", { name: "Payments", exact: true }) });
  await expect(page.getByTestId("billing-status")).toHaveText("Payments allowed");
  await expect(page.getByTestId("billing-status-reason")).toHaveText("Your organization is not billed for using this service.");
  await expect(card.getByText(/Trial/)).toHaveCount(0);
  await expect(page.getByTitle(/^Customer-initiated transactions \(CIT\)/)).toHaveText(/Allowed/);
  await expect(page.getByTitle(/^Merchant-initiated transactions \(MIT\)/)).toHaveText(/Allowed/);
});
