import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("create a subscription and an invoice from the dashboard, problems beside their fields in plain words", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const customer = (await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" })).body;
  await server.post("/customers", { email: "other@example.com" });
  const product = (await server.post("/products", { name: "Pro plan" })).body;
  const monthly = (await server.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } })).body;
  const setup = (await server.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 1500, type: "one_time" })).body;

  // From the customer's page: the form opens for them, offering only recurring prices.
  await page.goto(`${base}/customers/${customer.id}`);
  await page.getByRole("link", { name: "New subscription" }).click();
  await expect(page).toHaveURL(`${base}/subscriptions?new=1&customer=${customer.id}`);
  const form = page.getByRole("form", { name: "New subscription" });
  await expect(form.getByLabel("Customer")).toHaveValue(customer.id);
  await expect(form.getByLabel("Customer").locator("option", { hasText: "Jenny Rosen <jenny@example.com>" })).toHaveCount(1);
  await expect(form.getByLabel("Price")).toHaveValue(monthly.id);
  await expect(form.getByLabel("Price").locator("option")).toHaveText(["Pro plan · $20.00 / month"]);

  // The API's problems stand beside their fields: the quantity and the trial.
  await form.getByLabel("Quantity").fill("two");
  await form.getByLabel("Trial days (optional)").fill("1000");
  await form.getByRole("button", { name: "Create subscription" }).click();
  await expect(form.locator("label", { hasText: "Quantity" }).getByRole("alert")).toHaveText("Must be a whole number from 1 to 2147483647.");
  await expect(form.locator("label", { hasText: "Trial days" }).getByRole("alert")).toHaveText("Must be from 1 to 730.");
  expect((await server.get("/subscriptions")).body.total).toBe(0);

  // Corrected: the new subscription's page, trialing, with its plan.
  await form.getByLabel("Quantity").fill("2");
  await form.getByLabel("Trial days (optional)").fill("14");
  await form.getByRole("button", { name: "Create subscription" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/subscriptions/sub_[a-z]+_[0-9a-z]+$`));
  const subscriptionId = page.url().split("/").pop()!;
  const subscription = (await server.get(`/subscriptions/${subscriptionId}`)).body;
  expect(subscription).toMatchObject({ customer: customer.id, status: "trialing", items: [{ price: monthly.id, quantity: 2 }] });
  await page.goto(`${base}/subscriptions`);
  await expect(page.getByRole("table", { name: "Subscriptions" })).toContainText("Pro plan · $20.00 / month × 2");

  // An invoice: validator wording ("Too big: …") reads as plain words beside the memo.
  await page.goto(`${base}/invoices`);
  await page.getByRole("button", { name: "New invoice" }).click();
  const invoiceForm = page.getByRole("form", { name: "New invoice" });
  await invoiceForm.getByLabel("Customer").selectOption(customer.id);
  await invoiceForm.getByLabel("Invoice memo (optional)").fill("x".repeat(5001));
  await invoiceForm.getByLabel("Line: price").selectOption(setup.id);
  await invoiceForm.getByRole("button", { name: "Create draft invoice" }).click();
  const memo = invoiceForm.locator("label", { hasText: "Invoice memo" }).getByRole("alert");
  await expect(memo).toHaveText("At most 5000 characters.");
  await expect(invoiceForm).not.toContainText("Too big");

  // A custom amount without its description: asked for beside the line's description.
  await invoiceForm.getByLabel("Invoice memo (optional)").fill("Onboarding");
  await invoiceForm.getByLabel("Line: price").selectOption("");
  await invoiceForm.getByLabel("Line: custom amount").fill("49.90");
  await invoiceForm.getByRole("button", { name: "Create draft invoice" }).click();
  await expect(invoiceForm.locator("label", { hasText: "Line: description" }).getByRole("alert")).toHaveText("Required.");

  await invoiceForm.getByLabel("Line: description").fill("Setup help");
  await invoiceForm.getByLabel("Line: quantity").fill("2");
  await invoiceForm.getByRole("button", { name: "Create draft invoice" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/invoices/in_[a-z]+_[0-9a-z]+$`));
  const invoice = (await server.get(`/invoices/${page.url().split("/").pop()}`)).body;
  expect(invoice).toMatchObject({ customer: customer.id, status: "draft", currency: "usd", description: "Onboarding", total_amount_atom: 9980 });
  // The draft is ready for the actions on its page.
  await expect(page.getByRole("group", { name: "Invoice actions" }).getByRole("button", { name: "Finalize" })).toBeVisible();
});
