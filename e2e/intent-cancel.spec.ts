import { expect, test } from "@playwright/test";
import { createCall } from "@/packages/sdk/src/call";
import { bypassHeaders } from "./bypass";
import { baseUrl, createToken, signUp } from "./fixtures";

// The dashboard offers Cancel for a partially funded payment intent, because the API accepts it
// (one declaration: lib/payments/statuses.ts); it once hid it.
test("a partially funded payment intent can be canceled from its page", async ({ page }) => {
  const merchant = await signUp(page, "Acme Partial");
  // Sandbox payment methods work in the sandbox account only.
  await page.getByLabel("Account").selectOption({ index: 1 });
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  const sandboxAccountId = new URL(page.url()).pathname.split("/")[2]!;
  const token = await createToken(page, { ...merchant, accountId: sandboxAccountId }, "Intent server");
  const call = createCall({ baseUrl: `${baseUrl()}/api`, headers: { ...bypassHeaders(), Authorization: `Bearer ${token}` } });

  const intent = await call("createPaymentIntentForTokenAccount", {
    body: { amount_atom: 1001, currency: "usd", payment_method: "pm_sandbox_partially_funded", confirm: true },
  });
  expect(intent.ok && intent.data.status).toBe("partially_funded");
  if (!intent.ok) return;

  await page.goto(`${baseUrl()}/accounts/${sandboxAccountId}/payment-intents/${intent.data.id}`);
  await page.getByRole("button", { name: "Cancel payment intent" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel intent" }).click();
  await expect(page.getByRole("button", { name: "Cancel payment intent" })).toHaveCount(0);
  const after = await call("getPaymentIntentForTokenAccount", { path: { payment_intent_id: intent.data.id } });
  expect(after.ok && after.data.status).toBe("canceled");
});
