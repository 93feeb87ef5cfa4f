import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("a subscription's pending changes: listed on its page, cancelled with the Cancel button", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));

  const customer = await server.post("/customers", { email: "later@example.com" });
  const product = await server.post("/products", { name: "Pro plan" });
  const price = async (amount: number) =>
    (await server.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } })).body.id as string;
  const [pro, basic] = [await price(3000), await price(1000)];
  const created = await server.post("/subscriptions", { customer: customer.body.id, items: [{ price: pro }] });
  expect(created.status).toBe(201);
  const sub = created.body;

  // A downgrade at the period end, applied: scheduled, nothing changes now.
  const scr = await server.post(`/subscriptions/${sub.id}/change-requests`, {
    steps: [{ type: "switch_price", item: sub.items[0].id, price: basic }],
    effective: "period_end",
  });
  expect(scr.status).toBe(201);
  const applied = await server.post(`/subscriptions/${sub.id}/change-requests/${scr.body.id}/apply`, {});
  expect(applied.body.status).toBe("scheduled");

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/subscriptions/${sub.id}`);
  await expect(page.getByRole("heading", { name: sub.id })).toBeVisible();
  const pending = page.getByRole("table", { name: "Pending changes" });
  const row = pending.getByRole("row").filter({ hasText: scr.body.id });
  await expect(row).toContainText(`Switch ${sub.items[0].id} to`);
  await expect(row).toContainText("$10.00 / month");

  // Cancel asks first, then the change leaves the page and the request is canceled.
  await row.getByRole("button", { name: "Cancel" }).click();
  await page.getByRole("button", { name: "Cancel change" }).click();
  await expect(pending).toHaveCount(0);
  const after = await server.get(`/subscriptions/${sub.id}/change-requests/${scr.body.id}`);
  expect(after.body).toMatchObject({ status: "canceled", cancellation_reason: "requested" });
  expect((await server.get(`/subscriptions/${sub.id}`)).body.pending_changes).toEqual([]);
});
