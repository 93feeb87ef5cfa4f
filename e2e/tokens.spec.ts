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
