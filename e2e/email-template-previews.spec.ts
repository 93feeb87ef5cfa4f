import { randomBytes } from "node:crypto";
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

test("email templates: a viewer, who sees no switch, previews the templates too", async ({ page, browser }) => {
  const owner = await signUp(page, "Viewed Goods");
  const settings = `${baseUrl()}/accounts/${owner.accountId}/settings`;
  await page.goto(settings);
  // The final notice switched off: the viewer's list says so.
  const emailSettings = page.getByRole("form", { name: "Email settings" });
  await emailSettings.getByLabel("Final dunning notice (the last payment retry failed)").selectOption("off");
  await emailSettings.getByRole("button", { name: "Save email settings" }).click();
  await expect(page.getByText("Saved.", { exact: true })).toBeVisible();
  const invite = page.getByRole("form", { name: "Invite a member" });
  const email = `viewer-${randomBytes(5).toString("hex")}@example.com`;
  await invite.getByLabel("Email").fill(email);
  await invite.getByLabel("Role").selectOption({ label: "Viewer" });
  await invite.getByRole("button", { name: "Create invitation" }).click();
  const link = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
  expect(link).toMatch(/\/invite\/inv_[0-9a-z]{32}$/);

  const context = await browser.newContext();
  try {
    const viewer = await context.newPage();
    await viewer.goto(link);
    await expect(viewer.getByRole("button", { name: "Create account and join" })).toBeEnabled();
    await viewer.getByLabel("Your name").fill("Vera Viewer");
    await viewer.getByLabel("Password").fill(`pw-${randomBytes(9).toString("base64url")}`);
    await viewer.getByRole("button", { name: "Create account and join" }).click();
    await viewer.waitForURL(new RegExp(`/accounts/${owner.accountId}$`));

    await viewer.goto(settings);
    await expect(viewer.getByTestId("current-role")).toHaveText("Viewer");
    await expect(viewer.getByRole("form", { name: "Email settings" })).toHaveCount(0);
    const templates = viewer.getByRole("list", { name: "Email templates" });
    await expect(templates.getByRole("listitem").filter({ hasText: "Final dunning notice" })).toContainText("off");
    await expect(templates.getByRole("listitem").filter({ hasText: "Trial ending" })).toContainText("on");
    await templates.getByRole("button", { name: "Preview Trial ending" }).click();
    const panel = viewer.getByTestId("email-template-preview");
    await panel.getByLabel("Language").selectOption("fr");
    await expect(panel.getByTestId("email-template-subject")).toHaveText("Votre essai Viewed Goods se termine bientôt");
    await expect(panel.frameLocator("iframe").getByRole("heading", { name: "Votre essai se termine bientôt" })).toBeVisible();
    await expect(panel.frameLocator("iframe").getByText("Fin de l'essai")).toBeVisible();
  } finally {
    await context.close();
  }
});
