import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/* The subscription page's change form: the preview it shows is the API's change request, before anything is applied. */

test("the change form previews a downgrade's credit from the API's change request, then applies it", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));

  const customer = await server.post("/customers", { email: "preview@example.com" });
  const product = await server.post("/products", { name: "Team plan" });
  const price = async (amount: number) =>
    (await server.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } })).body.id as string;
  const [pro] = [await price(3000)];
  const created = await server.post("/subscriptions", { customer: customer.body.id, items: [{ price: pro, quantity: 3 }] });
  expect(created.status).toBe(201);
  const sub = created.body;

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/subscriptions/${sub.id}`);
  const form = page.getByRole("form", { name: "Change items" });
  await form.getByLabel("New quantity (optional)").fill("1");
  await form.getByLabel("Takes effect").selectOption("now");
  await form.getByRole("button", { name: "Preview the change" }).click();

  // The preview: the open change request the API created, its own figures.
  const preview = page.getByLabel("Change preview");
  await expect(preview).toContainText("create_prorations");
  const [open] = (await server.get(`/subscriptions/${sub.id}/change-requests`)).body.items;
  expect(open).toMatchObject({ status: "open", amount_due_now_atom: 0, next_invoice_amount_atom: 3000 });
  expect(open.proration_credit_atom).toBeGreaterThan(5000);
  await expect(preview.getByTestId("change-credit")).toHaveAttribute("data-atoms", String(open.proration_credit_atom));
  await expect(preview.getByTestId("change-due-now")).toHaveAttribute("data-atoms", "0");
  await expect(preview.getByTestId("change-next-invoice")).toHaveText("$30.00");
  // Nothing changed yet: the items and the balance are as they were.
  expect((await server.get(`/subscriptions/${sub.id}`)).body.items[0].quantity).toBe(3);
  expect((await server.get(`/customers/${customer.body.id}`)).body.balances).toEqual({});

  await preview.getByRole("button", { name: "Apply" }).click();
  await expect(preview).toContainText("Credited: balance transaction");
  const applied = (await server.get(`/subscriptions/${sub.id}/change-requests/${open.id}`)).body;
  expect(applied).toMatchObject({ status: "applied", balance_transaction: expect.stringMatching(/^cbtxn_/) });
  expect((await server.get(`/customers/${customer.body.id}`)).body.balances).toEqual({ usd: open.proration_credit_atom });
});
