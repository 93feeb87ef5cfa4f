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
  // Live totals as typed: the note's total, what is left to credit, and the amount due after it.
  const totals = form.getByRole("definition");
  await expect(form.getByTestId("cn-total")).toHaveText("$12.00");
  await expect(form.getByTestId("cn-creditable")).toHaveText("$50.00");
  await expect(form.getByTestId("cn-due-after")).toHaveText("$38.00");
  await expect(totals).toHaveCount(3);
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

test("a paid invoice's credit note: refund / credit / out-of-band split with live totals; the button waits until they add up", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const customer = await server.post("/customers", { email: "split@example.com" });
  const draft = await server.post("/invoices", { customer: customer.body.id, currency: "usd", lines: [{ unit_amount_atom: 5000, description: "Consulting" }] });
  await server.post(`/invoices/${draft.body.id}/finalize`);
  expect((await server.post(`/invoices/${draft.body.id}/pay`, { paid_out_of_band: true })).body.status).toBe("paid");

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/invoices/${draft.body.id}`);
  const form = page.getByRole("form", { name: "Issue a credit note" });
  const issue = form.getByRole("button", { name: "Issue credit note" });
  const figures = async (total: string, split: string, remaining: string) => {
    await expect(form.getByTestId("cn-total")).toHaveText(total);
    await expect(form.getByTestId("cn-split")).toHaveText(split);
    await expect(form.getByTestId("cn-remaining")).toHaveText(remaining);
  };
  await form.getByLabel("Amount (tax included)").fill("20.00");
  // Nothing split: all of it to the balance (the API's default), so it adds up.
  await figures("$20.00", "$20.00 (all to the balance)", "$0.00");
  await expect(form.getByTestId("cn-creditable")).toHaveText("$50.00");
  await expect(issue).toBeEnabled();

  await form.getByLabel("Credit to the customer's balance").fill("5.00");
  await figures("$20.00", "$5.00", "$15.00");
  await expect(issue).toBeDisabled();
  await expect(form.getByTestId("form-blocked")).toContainText("allocate $15.00 more");
  await form.getByLabel("Settled out of band").fill("20.00");
  await figures("$20.00", "$25.00", "-$5.00");
  await expect(form.getByTestId("form-blocked")).toContainText("$5.00 more than the credit note's total");
  await expect(issue).toBeDisabled();
  await form.getByLabel("Settled out of band").fill("15.00");
  await figures("$20.00", "$20.00", "$0.00");
  await expect(form.getByTestId("form-blocked")).toHaveCount(0);
  await issue.click();
  await page.getByRole("dialog", { name: "Issue this credit note?" }).getByRole("button", { name: "Issue" }).click();
  await expect(page.getByText(/^Issued .*-CN-0001/)).toBeVisible();
  const [note] = (await server.get(`/credit-notes?invoice=${draft.body.id}`)).body.items;
  expect(note).toMatchObject({ total_amount_atom: 2000, refund_amount_atom: 0, credit_amount_atom: 500, out_of_band_amount_atom: 1500 });

  // Left to credit is now 30.00: more than that is held, with the reason.
  await expect(form.getByTestId("cn-creditable")).toHaveText("$30.00");
  await form.getByLabel("Amount (tax included)").fill("40.00");
  await expect(form.getByTestId("form-blocked")).toContainText("more than the $30.00 left to credit");
  await expect(issue).toBeDisabled();
});

test("a credit note by lines: a quantity on one line of a multi-line invoice, its total the API's preview, issued with that line", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const customer = await server.post("/customers", { email: "lines@example.com" });
  // An exclusive tax, so a line's credited total is more than its units (its tax share, rounded by the API).
  const vat = (await server.post("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false })).body;
  const draft = await server.post("/invoices", {
    customer: customer.body.id,
    currency: "usd",
    lines: [
      { unit_amount_atom: 1999, quantity: 3, description: "Seats", tax_rates: [vat.id] },
      { unit_amount_atom: 5000, description: "Setup", tax_rates: [vat.id] },
    ],
  });
  const open = (await server.post(`/invoices/${draft.body.id}/finalize`)).body;
  const seats = open.lines.find((line: { description: string }) => line.description === "Seats");
  const usd = (atoms: number) => `${atoms < 0 ? "-" : ""}$${(Math.abs(atoms) / 100).toFixed(2)}`;

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/invoices/${draft.body.id}`);
  const form = page.getByRole("form", { name: "Issue a credit note" });
  const issue = form.getByRole("button", { name: "Issue credit note" });
  await form.getByLabel("Issue by").selectOption("lines");
  await expect(form.getByLabel("Amount (tax included)")).toHaveCount(0);
  // The invoice's lines, each with its quantity and amount; nothing picked holds the button.
  const lines = form.getByRole("table", { name: "Lines to credit" });
  await expect(lines.getByRole("row", { name: /Seats/ })).toContainText("$59.97");
  await expect(lines.getByRole("row", { name: /Setup/ })).toContainText("$50.00");
  await expect(form.getByTestId("form-blocked")).toContainText("at least one line");
  await expect(issue).toBeDisabled();

  // More than the line bills: the preview's refusal, named by the line.
  await form.getByLabel("Quantity to credit: Seats").fill("4");
  await expect(form.getByTestId("form-blocked")).toContainText("Seats: Must be at most the line's quantity not yet credited (3 of 3).");
  await expect(issue).toBeDisabled();

  // Not a whole number: no preview to show, and the API's refusal on issuing, named by the line.
  await form.getByLabel("Quantity to credit: Seats").fill("1.5");
  await expect(form.getByTestId("cn-total")).toHaveText("—");
  await issue.click();
  await page.getByRole("dialog", { name: "Issue this credit note?" }).getByRole("button", { name: "Issue" }).click();
  await expect(form.getByText("Seats: Must be a whole number of 1 or more.")).toBeVisible();

  // 2 of the 3 seats: the displayed total is the API's preview of that selection.
  await form.getByLabel("Quantity to credit: Seats").fill("2");
  const preview = await server.post("/credit-notes/preview", { invoice: open.id, reason: "order_change", lines: [{ invoice_line: seats.id, quantity: 2 }] });
  expect(preview.status).toBe(200);
  const total: number = preview.body.total_amount_atom;
  expect(total).toBeGreaterThan(3998); // 2 × 19.99 and its share of the tax
  await expect(form.getByTestId("cn-total")).toHaveText(usd(total));
  await expect(form.getByTestId("cn-due-after")).toHaveText(usd(open.due_amount_atom - total));
  await expect(form.getByTestId("form-blocked")).toHaveCount(0);
  await issue.click();
  await page.getByRole("dialog", { name: "Issue this credit note?" }).getByRole("button", { name: "Issue" }).click();
  await expect(page.getByText(/^Issued .*-CN-0001/)).toHaveText(new RegExp(`for ${usd(total).replace("$", "\\$")}\\.$`));

  // The API: one line, the seats line, 2 units; the invoice's amount due lowered by its total.
  const [note] = (await server.get(`/credit-notes?invoice=${open.id}`)).body.items;
  expect(note).toMatchObject({ type: "pre_payment", total_amount_atom: total, subtotal_atom: 3998, tax_atom: total - 3998 });
  expect(note.lines).toHaveLength(1);
  expect(note.lines[0]).toMatchObject({ invoice_line: seats.id, description: "Seats", quantity: 2, amount_atom: 3998, total_amount_atom: total });
  expect((await server.get(`/invoices/${open.id}`)).body).toMatchObject({ due_amount_atom: open.due_amount_atom - total, pre_payment_credit_notes_amount_atom: total });
  // The form starts over by amount; by lines again, the seats show what was credited on them.
  await form.getByLabel("Issue by").selectOption("lines");
  await expect(lines.getByRole("row", { name: /Seats/ }).getByRole("cell").nth(3)).toHaveText("$39.98");
});

test("a paid invoice credited by an amount on one line: the previewed total splits into refund / credit / out of band", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const customer = await server.post("/customers", { email: "paid-lines@example.com" });
  const draft = await server.post("/invoices", {
    customer: customer.body.id,
    currency: "usd",
    lines: [
      { unit_amount_atom: 3000, description: "Consulting" },
      { unit_amount_atom: 2000, description: "Travel" },
    ],
  });
  const open = (await server.post(`/invoices/${draft.body.id}/finalize`)).body;
  expect((await server.post(`/invoices/${open.id}/pay`, { paid_out_of_band: true })).body.status).toBe("paid");
  const travel = open.lines.find((line: { description: string }) => line.description === "Travel");

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/invoices/${open.id}`);
  const form = page.getByRole("form", { name: "Issue a credit note" });
  const issue = form.getByRole("button", { name: "Issue credit note" });
  await form.getByLabel("Issue by").selectOption("lines");
  await form.getByLabel("Amount to credit: Travel").fill("12.50");
  await expect(form.getByTestId("cn-total")).toHaveText("$12.50");
  await expect(form.getByTestId("cn-split")).toHaveText("$12.50 (all to the balance)");
  await form.getByLabel("Settled out of band").fill("10.00");
  await expect(form.getByTestId("cn-remaining")).toHaveText("$2.50");
  await expect(form.getByTestId("form-blocked")).toContainText("allocate $2.50 more");
  await expect(issue).toBeDisabled();
  await form.getByLabel("Credit to the customer's balance").fill("2.50");
  await expect(form.getByTestId("cn-remaining")).toHaveText("$0.00");
  await issue.click();
  await page.getByRole("dialog", { name: "Issue this credit note?" }).getByRole("button", { name: "Issue" }).click();
  await expect(page.getByText(/^Issued .*-CN-0001 for \$12\.50\.$/)).toBeVisible();
  const [note] = (await server.get(`/credit-notes?invoice=${open.id}`)).body.items;
  expect(note).toMatchObject({ type: "post_payment", total_amount_atom: 1250, credit_amount_atom: 250, out_of_band_amount_atom: 1000, refund_amount_atom: 0 });
  expect(note.lines).toEqual([expect.objectContaining({ invoice_line: travel.id, quantity: null, amount_atom: 1250, total_amount_atom: 1250 })]);
  expect((await server.get(`/customers/${customer.body.id}`)).body.balances).toEqual({ usd: 250 });
});
