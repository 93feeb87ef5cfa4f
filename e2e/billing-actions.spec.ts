import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("subscription and invoice actions from their pages: pause, resume, cancel; finalize, pay out of band, void", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const customer = await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" });
  const product = await server.post("/products", { name: "Pro plan" });
  const monthly = await server.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } });
  const hour = await server.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: 1500, type: "one_time" });
  const subscription = await server.post("/subscriptions", { customer: customer.body.id, items: [{ price: monthly.body.id }] });
  expect(subscription.status).toBe(201);

  // Subscription: pause and resume at once, cancel only after confirming.
  await page.goto(`${base}/subscriptions/${subscription.body.id}`);
  const actions = page.getByRole("group", { name: "Subscription actions" });
  await actions.getByRole("button", { name: "Pause" }).click();
  await expect(actions.getByRole("button", { name: "Resume" })).toBeVisible();
  expect((await server.get(`/subscriptions/${subscription.body.id}`)).body.status).toBe("paused");
  await actions.getByRole("button", { name: "Resume" }).click();
  await expect(actions.getByRole("button", { name: "Pause" })).toBeVisible();
  await actions.getByRole("button", { name: "Cancel now" }).click();
  const cancel = page.getByRole("dialog", { name: "Cancel this subscription now?" });
  await cancel.getByRole("button", { name: "Cancel", exact: true }).click();
  expect((await server.get(`/subscriptions/${subscription.body.id}`)).body.status).toBe("active");
  await actions.getByRole("button", { name: "Cancel now" }).click();
  await cancel.getByRole("button", { name: "Cancel subscription" }).click();
  await expect(actions).toHaveCount(0);
  expect((await server.get(`/subscriptions/${subscription.body.id}`)).body.status).toBe("cancelled");

  // Invoice: a draft is finalized, then marked paid out of band after confirming.
  const draft = await server.post("/invoices", { customer: customer.body.id, currency: "usd", lines: [{ price: hour.body.id, quantity: 2 }] });
  expect(draft.body.status).toBe("draft");
  await page.goto(`${base}/invoices/${draft.body.id}`);
  const invoiceActions = page.getByRole("group", { name: "Invoice actions" });
  await invoiceActions.getByRole("button", { name: "Finalize" }).click();
  await expect(invoiceActions.getByRole("button", { name: "Mark paid out of band" })).toBeVisible();
  // A live account has no sandbox card to pay with.
  await expect(invoiceActions.getByRole("button", { name: "Pay with sandbox card" })).toHaveCount(0);
  await invoiceActions.getByRole("button", { name: "Mark paid out of band" }).click();
  await page.getByRole("dialog", { name: "Mark as paid out of band?" }).getByRole("button", { name: "Mark paid" }).click();
  // Paid: nothing left to pay, void or write off; it can still be emailed to the customer.
  await expect(invoiceActions.getByRole("button")).toHaveText(["Email invoice"]);
  expect((await server.get(`/invoices/${draft.body.id}`)).body.status).toBe("paid");

  // Another is voided after confirming.
  const other = await server.post("/invoices", { customer: customer.body.id, currency: "usd", lines: [{ price: hour.body.id }] });
  expect((await server.post(`/invoices/${other.body.id}/finalize`)).status).toBe(200);
  await page.goto(`${base}/invoices/${other.body.id}`);
  await page.getByRole("group", { name: "Invoice actions" }).getByRole("button", { name: "Void" }).click();
  await page.getByRole("dialog", { name: "Void this invoice?" }).getByRole("button", { name: "Void invoice" }).click();
  await expect(page.getByRole("group", { name: "Invoice actions" })).toHaveCount(0);
  expect((await server.get(`/invoices/${other.body.id}`)).body.status).toBe("void");
});
