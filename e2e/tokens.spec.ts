import { expect, test } from "@playwright/test";
import { api, createToken, signUp } from "./fixtures";

test("revoking a token makes its next API call answer 401", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Short-lived");
  expect((await api(token).get("/customers")).status).toBe(200);

  const tokens = page.getByRole("table", { name: "API tokens" });
  const row = tokens.getByRole("row").filter({ hasText: "Short-lived" });
  await expect(row).toContainText(token.slice(-4));
  await expect(tokens).not.toContainText(token);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("revoked");

  const after = await api(token).get("/customers");
  expect(after.status).toBe(401);
  expect(after.body.detail).toMatch(/revoked/);
});

test("a restricted key made on the token page calls only what its permissions name, and rolls", async ({ page }) => {
  const merchant = await signUp(page);
  await page.goto(`/accounts/${merchant.accountId}/tokens`);
  await page.getByLabel("Name").fill("Warehouse");
  await page.getByLabel("Kind").selectOption({ label: "Restricted" });
  await page.getByLabel("Invoices permission").selectOption({ label: "Read" });
  await page.getByLabel("Description").fill("Nightly invoice sync");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
  expect(token).toMatch(/^rk_[a-z]+_[0-9a-z]{32}$/);

  expect((await api(token).get("/invoices")).status).toBe(200);
  const refused = await api(token).offContract.post("/customers", { email: "no@example.com" });
  expect(refused.status).toBe(403);
  expect(refused.body.required_permission).toBe("customers:write");

  const row = page.getByRole("table", { name: "API tokens" }).getByRole("row").filter({ hasText: "Warehouse" });
  await expect(row).toContainText("Restricted");
  await expect(row).toContainText("invoices: read");
  await page.getByRole("button", { name: "Dismiss" }).click();
  await row.getByRole("button", { name: "Roll" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Roll" }).click();
  const rolled = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
  expect(rolled).toMatch(/^rk_[a-z]+_[0-9a-z]{32}$/);
  expect(rolled).not.toBe(token);
  // Both work during the overlap (a day from the page).
  expect((await api(rolled).get("/invoices")).status).toBe(200);
  expect((await api(token).get("/invoices")).status).toBe(200);
  await expect(row).toContainText("previous secret until");
});
