import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("a credit note issued and voided from the invoice page; the balance adjusted and its ledger on the customer page", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const customer = await server.post("/customers", { email: "credit@example.com", name: "Credit Customer" });
  const draft = await server.post("/invoices", { customer: customer.body.id, currency: "usd", lines: [{ unit_amount_atom: 5000, description: "Consulting" }] });
  const open = await server.post(`/invoices/${draft.body.id}/finalize`);
  expect(open.body.due_amount_atom).toBe(5000);

  // Issue 12.00 off the open invoice: its amount due goes down.
  await page.goto(`${base}/invoices/${draft.body.id}`);
  const form = page.getByRole("form", { name: "Issue a credit note" });
  await form.getByLabel("Amount (tax included)").fill("12.00");
  await form.getByRole("button", { name: "Issue credit note" }).click();
  await page.getByRole("dialog", { name: "Issue this credit note?" }).getByRole("button", { name: "Issue" }).click();
  await expect(page.getByText(/^Issued .*-CN-0001/)).toBeVisible();
  expect((await server.get(`/invoices/${draft.body.id}`)).body).toMatchObject({ due_amount_atom: 3800, pre_payment_credit_notes_amount_atom: 1200 });
  const notes = page.getByRole("table", { name: "Credit notes" });
  await expect(notes.getByRole("row")).toHaveCount(2);

  // Voided after confirming: the amount due is back.
  await notes.getByRole("button", { name: "Void" }).click();
  await page.getByRole("dialog", { name: /^Void .*-CN-0001\?$/ }).getByRole("button", { name: "Void credit note" }).click();
  await expect(notes.getByRole("button", { name: "Void", exact: true })).toHaveCount(0);
  await expect(notes.getByText("void", { exact: true })).toBeVisible();
  expect((await server.get(`/invoices/${draft.body.id}`)).body.due_amount_atom).toBe(5000);

  // The customer page: a debit of 7.50, shown as the balance and in the ledger.
  await page.goto(`${base}/customers/${customer.body.id}`);
  const adjust = page.getByRole("form", { name: "Adjust the balance" });
  await adjust.getByLabel("Kind").selectOption("debit");
  await adjust.getByLabel("Amount").fill("7.50");
  await adjust.getByLabel("Description").fill("Late fee");
  await adjust.getByRole("button", { name: "Adjust balance" }).click();
  await expect(page.getByText(/^Done: the balance is now -\$7\.50\.$/)).toBeVisible();
  expect((await server.get(`/customers/${customer.body.id}`)).body.balances).toEqual({ usd: -750 });
  await expect(page.getByRole("table", { name: "Balance transactions" }).getByText("Late fee")).toBeVisible();
});
