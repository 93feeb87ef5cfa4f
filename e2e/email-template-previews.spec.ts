import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

const NBSP = "\u00a0";

/**
 * Settings → Emails previews each email type before any was sent (docs/emails.md, "Previewing the
 * templates"): the subject, the HTML in a sandboxed frame, in the language picked, with the
 * account's branding and sample data; and the plain-text part. Nothing is sent.
 */
test("email templates: Settings → Emails previews two types in two languages, branded, in a sandboxed frame; nothing is sent", async ({ page }) => {
  const merchant = await signUp(page, "Preview Goods");
  const server = api(await createToken(page, merchant, "Previews server"));
  const settings = await server.post("/account-settings", {
    business_name: "Preview Goods Ltd",
    support_email: "help@preview.test",
    brand_color: "#b4235a",
    invoice_prefix: "PVG",
  });
  expect(settings.status, settings.text).toBe(200);
  const product = (await server.post("/products", { name: "Pro plan" })).body;
  const price = await server.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 2_000, type: "recurring", recurring: { interval: "month" } });
  expect(price.status, price.text).toBe(201);

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/settings`);
  const emails = page.getByRole("form", { name: "Email settings" });
  const panel = page.getByTestId("email-template-preview");
  const frame = panel.frameLocator("iframe");

  // The receipt, beside its switch, in the account's language (English), then in French.
  await emails.getByRole("button", { name: "Preview Payment receipt" }).click();
  await expect(panel.getByRole("heading", { name: "Preview: Payment receipt (sample data)" })).toBeVisible();
  await expect(panel.getByTestId("email-template-subject")).toHaveText("Your receipt from Preview Goods Ltd (invoice PVG-0042)");
  await expect(panel.locator("iframe")).toHaveAttribute("sandbox", "");
  await expect(frame.getByRole("heading", { name: "Payment received" })).toBeVisible();
  await expect(frame.getByText("Preview Goods Ltd", { exact: true })).toHaveCSS("color", "rgb(180, 35, 90)");
  await expect(frame.getByText("€1,234.50")).toBeVisible();
  await expect(frame.getByRole("link", { name: "View receipt" })).toHaveAttribute("href", "https://example.com/invoice/sample");
  await expect(frame.getByRole("link", { name: "help@preview.test" })).toBeVisible();

  await panel.getByLabel("Language").selectOption("fr");
  await expect(panel.getByTestId("email-template-subject")).toHaveText("Votre reçu de Preview Goods Ltd (facture PVG-0042)");
  await expect(frame.getByRole("heading", { name: "Paiement reçu" })).toBeVisible();
  await expect(frame.getByText(`1${NBSP}234,50${NBSP}€`)).toBeVisible();
  await expect(panel.getByTestId("email-template-text")).toBeHidden();
  await panel.getByText("Plain-text part").click();
  await expect(panel.getByTestId("email-template-text")).toContainText(`Montant: 1${NBSP}234,50${NBSP}€`);
  await expect(panel.getByTestId("email-template-text")).toContainText("Des questions ? Écrivez à help@preview.test");

  // Another type: the upcoming renewal, in German.
  await emails.getByRole("button", { name: "Preview Upcoming renewal" }).click();
  await expect(panel.getByRole("heading", { name: "Preview: Upcoming renewal (sample data)" })).toBeVisible();
  await expect(panel.getByTestId("email-template-subject")).toHaveText("Your Preview Goods Ltd subscription renews soon");
  await panel.getByLabel("Language").selectOption("de");
  await expect(panel.getByTestId("email-template-subject")).toHaveText("Ihr Abonnement bei Preview Goods Ltd verlängert sich bald");
  await expect(frame.getByRole("heading", { name: "Ihr Abonnement verlängert sich bald" })).toBeVisible();
  await expect(frame.getByText(`1.234,50${NBSP}€`)).toBeVisible();
  await expect(frame.getByText("Verlängerung am")).toBeVisible();

  await panel.getByRole("button", { name: "Close preview" }).click();
  await expect(panel).toHaveCount(0);

  // Previews send nothing: the email log is empty.
  expect((await server.get("/emails")).body.items).toEqual([]);
});
