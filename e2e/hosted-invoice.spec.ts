import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { operationPath } from "@/lib/operation-paths";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("hosted invoice: opens signed out, downloads the PDF, pays the open sandbox invoice; a wrong or altered token is a 404", async ({ page, browser }) => {
  const merchant = await signUp(page, "Atelier Lumière");
  await page.getByLabel("Account").selectOption({ index: 1 });
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  const sandboxAccountId = new URL(page.url()).pathname.split("/")[2]!;
  const server = api(await createToken(page, { ...merchant, accountId: sandboxAccountId }, "Invoices server"));

  expect((await server.post("/account-settings", { business_name: "Atelier Lumière SARL", default_locale: "fr" })).status).toBe(200);
  const customer = await server.post("/customers", { email: "client@example.fr", name: "Camille Martin" });
  const draft = await server.post("/invoices", { customer: customer.body.id, currency: "eur", lines: [{ unit_amount_atom: 15000, description: "Séance photo" }] });
  const invoice = (await server.post(`/invoices/${draft.body.id}/finalize`)).body;
  expect(invoice.number).toMatch(/^ATELIE-\d{4}$/);

  // Signed out: a fresh browser context without the dashboard's session.
  const context = await browser.newContext({ acceptDownloads: true });
  const visitor = await context.newPage();
  try {
    await visitor.goto(invoice.hosted_invoice_url);
    await expect(visitor.getByRole("heading", { name: `Facture ${invoice.number}` })).toBeVisible();
    await expect(visitor.getByText("Séance photo")).toBeVisible();
    // The page speaks the invoice's language only: the status in words, the payment form.
    await expect(visitor.getByTestId("invoice-status")).toHaveAttribute("data-status", "open");
    await expect(visitor.getByTestId("invoice-status")).toHaveText("à payer");
    await expect(visitor.getByLabel("Moyen de paiement")).toBeVisible();
    await expect(visitor.getByText(/Payment method|Status|Sandbox card|succeeds/)).toHaveCount(0);

    const [download] = await Promise.all([visitor.waitForEvent("download"), visitor.getByRole("link", { name: "Télécharger le PDF" }).click()]);
    const bytes = readFileSync((await download.path())!);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(invoice.pdf_sha256);

    await visitor.getByRole("button", { name: /^Payer/ }).click();
    await expect(visitor.getByTestId("invoice-status")).toHaveText("payée");
    await expect(visitor.getByTestId("invoice-due")).toContainText("0,00");
    expect((await server.get(`/invoices/${invoice.id}`)).body).toMatchObject({ status: "paid", due_amount_atom: 0 });

    const token = invoice.hosted_invoice_url.split("/").pop() as string;
    const altered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const wrong of [altered, "not-a-token"]) {
      const response = await visitor.goto(invoice.hosted_invoice_url.replace(token, wrong));
      expect(response?.status()).toBe(404);
      await expect(visitor.getByText(invoice.number)).toHaveCount(0);
    }
  } finally {
    await context.close();
  }
});

test("dashboard: the seller's details in Settings; the invoice page and list show the number, tax, Download PDF and Copy hosted link", async ({ page }) => {
  const merchant = await signUp(page, "Dashboard Invoices");
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  await page.goto(`${base}/settings`);
  const seller = page.getByRole("form", { name: "Seller details" });
  await seller.getByLabel("Business name").fill("Dashboard Invoices Ltd");
  await seller.getByLabel("Invoice number prefix").fill("DASH");
  await seller.getByRole("button", { name: "Save seller details" }).click();
  await expect(page.getByText("Saved. Invoices finalized from now on print these details.")).toBeVisible();

  const server = api(await createToken(page, merchant, "Invoices server"));
  expect((await server.get("/account-settings")).body).toMatchObject({ business_name: "Dashboard Invoices Ltd", invoice_prefix: "DASH" });
  const vat = (await server.post("/tax-rates", { display_name: "VAT", percentage: 20, inclusive: false })).body;
  const customer = (await server.post("/customers", { email: "grace@example.com", name: "Grace Hopper" })).body;
  const product = (await server.post("/products", { name: "Compiler licence" })).body;
  const price = (await server.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 5000, type: "one_time" })).body;
  const draft = (await server.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ price: price.id, tax_rates: [vat.id] }] })).body;
  const invoice = (await server.post(`/invoices/${draft.id}/finalize`)).body;
  expect(invoice).toMatchObject({ number: "DASH-0001", tax_atom: 1000, total_amount_atom: 6000 });

  const pdfPath = operationPath("getInvoicePdf", { account_id: merchant.accountId, invoice_id: invoice.id });
  await page.goto(`${base}/invoices`);
  const row = page.getByRole("row").filter({ hasText: "DASH-0001" });
  await expect(row).toContainText("Grace Hopper");
  await expect(row).toContainText("$10.00");
  await row.getByRole("link", { name: /DASH-0001/ }).click();
  await expect(page.getByRole("heading", { name: /DASH-0001/ })).toBeVisible();
  await expect(page.getByRole("table", { name: "Lines" })).toContainText("Compiler licence");
  await expect(page.getByRole("link", { name: "Download PDF" })).toHaveAttribute("href", pdfPath);
  await expect(page.getByRole("button", { name: "Copy hosted link" })).toBeVisible();
  const pdf = await page.request.get(pdfPath);
  expect(pdf.status()).toBe(200);
  expect(createHash("sha256").update(await pdf.body()).digest("hex")).toBe(invoice.pdf_sha256);
});
