import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("payments: find a payment, refund part of it after confirming, and see the refund", async ({ page }) => {
  const merchant = await signUp(page);
  await page.getByLabel("Account").selectOption({ label: "Sandbox: Acme (sandbox)" });
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  const sandbox = { ...merchant, accountId: new URL(page.url()).pathname.split("/")[2]! };
  const server = api(await createToken(page, sandbox, "Sandbox server"));
  const intent = await server.post("/payment-intents", { amount_atom: 2500, currency: "usd", payment_method: "pm_sandbox_succeeds", confirm: true });
  expect(intent.status).toBe(201);
  const payments = await server.get(`/payments?payment_intent=${intent.body.id}`);
  const paymentId = payments.body.items[0].id as string;
  const base = `${baseUrl()}/accounts/${sandbox.accountId}`;

  // The payments list, reached from the navigation, links each payment.
  await page.getByRole("link", { name: "Payments", exact: true }).click();
  const list = page.getByRole("table", { name: "Payments" });
  await expect(list).toContainText("$25.00");
  await list.getByRole("link", { name: "$25.00" }).click();
  await expect(page).toHaveURL(`${base}/payments/${paymentId}`);

  // Too much: the API's problem beside the amount, nothing refunded.
  const form = page.getByRole("form", { name: "Refund this payment" });
  await form.getByLabel("Amount (optional)").fill("30");
  await form.getByRole("button", { name: "Refund" }).click();
  await page.getByRole("dialog", { name: "Refund this payment?" }).getByRole("button", { name: "Refund" }).click();
  await expect(form.locator("label", { hasText: "Amount" }).getByRole("alert")).toBeVisible();
  expect((await server.get(`/refunds?payment=${paymentId}`)).body.items).toEqual([]);

  // Ten dollars, confirmed: the refund's own page.
  await form.getByLabel("Amount (optional)").fill("10");
  await form.getByLabel("Reason").selectOption("requested_by_customer");
  await form.getByRole("button", { name: "Refund" }).click();
  await page.getByRole("dialog", { name: "Refund this payment?" }).getByRole("button", { name: "Refund" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/refunds/re_[a-z]+_[0-9a-z]+$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("$10.00 refund");
  const refunds = (await server.get(`/refunds?payment=${paymentId}`)).body.items;
  expect(refunds).toMatchObject([{ amount_atom: 1000, reason: "requested_by_customer", payment: paymentId }]);

  // The refund list filters by payment through the URL.
  await page.goto(`${base}/refunds?payment=${paymentId}`);
  await expect(page.getByRole("table", { name: "Refunds" })).toContainText("$10.00");
  await expect(page.getByRole("table", { name: "Refunds" })).toContainText("requested_by_customer");
});
