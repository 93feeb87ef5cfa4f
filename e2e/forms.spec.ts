import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

// A merchant whose browser writes decimals with a comma.
test.use({ locale: "de-DE" });

test("forms: an amount typed as a German writes it, an invoice in its price's currency, a confirmed product, a substring search", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server token"));
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const customer = await server.post("/customers", { email: "ada@example.org", name: "Ada Lovelace" });
  expect(customer.status).toBe(201);
  expect((await server.post("/customers", { email: "grace@example.org", name: "Grace Hopper" })).status).toBe(201);

  for (const width of [1280, 390]) {
    await test.step(`at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });

      // A product: confirmed, the form empty for the next one, the list showing it.
      await page.goto(`${base}/products`);
      await page.getByRole("button", { name: "New product" }).click();
      const productForm = page.getByRole("form", { name: "New product" });
      await productForm.getByLabel("Name").fill(`Beans ${width}`);
      await productForm.getByRole("button", { name: "Create product" }).click();
      await expect(productForm.getByRole("status")).toContainText(`Product created: Beans ${width}`);
      await expect(productForm.getByLabel("Name")).toHaveValue("");
      await expect(page.getByRole("table", { name: "Products" })).toContainText(`Beans ${width}`);

      // Its price in EUR typed "15,00": the atoms shown beside the field, too many decimals refused.
      await productForm.getByRole("status").getByRole("link", { name: `Beans ${width}` }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Beans ${width}`);
      const priceForm = page.getByRole("form", { name: "Add a price" });
      await priceForm.getByLabel("Currency").fill("eur");
      await priceForm.getByLabel("Amount").fill("15,001");
      await priceForm.getByRole("button", { name: "Create price" }).click();
      await expect(priceForm.locator("label", { hasText: "Amount" }).getByRole("alert")).toHaveText('EUR amounts have 2 decimal places: "15,001" has 3.');
      await priceForm.getByLabel("Amount").fill("15,00");
      await expect(priceForm).toContainText("= 15,00 €");
      await priceForm.getByLabel("Billing").selectOption("one_time");
      await priceForm.getByRole("button", { name: "Create price" }).click();
      await expect(page).toHaveURL(new RegExp(`${base}/prices/price_[a-z]+_[0-9a-z]+$`));
      const priceId = page.url().split("/").pop()!;
      expect((await server.get(`/prices/${priceId}`)).body).toMatchObject({ currency: "eur", unit_amount_atom: 1500, type: "one_time" });

      // A new invoice: picking the EUR price makes the invoice EUR, and the API takes it.
      await page.goto(`${base}/invoices`);
      await page.getByRole("button", { name: "New invoice" }).click();
      const invoiceForm = page.getByRole("form", { name: "New invoice" });
      await invoiceForm.getByLabel("Customer").selectOption(customer.body.id);
      await expect(invoiceForm.getByLabel("Currency")).toHaveValue("usd");
      await invoiceForm.getByLabel("Line: price").selectOption(priceId);
      await expect(invoiceForm.getByLabel("Currency")).toHaveValue("eur");
      await invoiceForm.getByRole("button", { name: "Create draft invoice" }).click();
      await expect(page).toHaveURL(new RegExp(`${base}/invoices/in_[a-z]+_[0-9a-z]+$`));
      const invoice = (await server.get(`/invoices/${page.url().split("/").pop()}`)).body;
      expect(invoice).toMatchObject({ customer: customer.body.id, status: "draft", currency: "eur", total_amount_atom: 1500 });

      // The dashboard's search finds a surname inside a name.
      const search = page.getByRole("search").getByLabel("Search");
      await search.fill("Lovelace");
      await search.press("Enter");
      await expect(page).toHaveURL(`${base}/customers?q=Lovelace`);
      const found = page.getByRole("table", { name: "Customers" });
      await expect(found).toContainText("ada@example.org");
      await expect(found).not.toContainText("grace@example.org");
    });
  }
});
