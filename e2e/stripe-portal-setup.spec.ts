import { randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { connectStripe, stripeStandInClient } from "../tests/helpers/stripe-stand-in";
import { installFakeStripe } from "./fake-stripe";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/*
 * The portal's "update payment method" on a live account connected to Stripe (docs/payments.md,
 * "Saving a card with a SetupIntent"): the Payment Element in setup mode and `confirmSetup` of the
 * fake Stripe.js (./fake-stripe.ts) against the stand-in the app talks to. The card is recorded
 * only from Stripe's word (the return URL's retrieve or the webhook), once.
 */

test.use({ bypassCSP: true });
test.describe.configure({ timeout: 240_000 });

function standIn() {
  const url = process.env.E2E_STRIPE_STAND_IN_URL;
  if (!url) throw new Error("E2E_STRIPE_STAND_IN_URL: the Stripe stand-in the app under test talks to (e2e/global-setup.ts starts one).");
  return stripeStandInClient(url);
}

/** A live merchant connected to Stripe, a customer paying a monthly plan with a saved Visa, and the customer's portal link. */
async function portalWithSavedCard(page: Page, company: string) {
  const merchant = await signUp(page, company);
  const server = api(await createToken(page, merchant, "Portal server"));
  const suffix = randomBytes(6).toString("hex");
  const endpoint = await connectStripe(server, merchant.accountId, { processor: "stripe", secret_key: `sk_live_e2e${suffix}`, publishable_key: `pk_live_e2e${suffix}` });
  const product = (await server.post("/products", { name: "Coffee club" })).body;
  const price = (await server.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 1900, type: "recurring", recurring: { interval: "month" } })).body;
  const customer = (await server.post("/customers", { email: "ada@example.com", name: "Ada" })).body;
  const visa = (await server.post(`/customers/${customer.id}/payment-methods`, { processor_payment_method: "pm_card_visa" })).body;
  expect(visa.card).toMatchObject({ brand: "visa", last4: "4242" });
  const subscription = await server.post("/subscriptions", { customer: customer.id, items: [{ price: price.id }], default_payment_method: visa.id });
  expect(subscription.status, subscription.text).toBe(201);
  const session = (await server.post(`/${merchant.accountId}/portal-sessions`, { customer: customer.id })).body;
  return { merchant, server, endpoint, customer, visa, subscription: subscription.body, portalUrl: session.url as string };
}

async function save(page: Page, card: string) {
  await page.getByLabel("Card number").fill(card);
  await page.getByRole("button", { name: "Save card" }).click();
}

test("stripe portal: a declined card shows Stripe's error; a card through 3-D Secure becomes the subscription's card, recorded once", async ({ page }) => {
  await installFakeStripe(page, standIn().url);
  const { merchant, server, endpoint, customer, visa, subscription, portalUrl } = await portalWithSavedCard(page, "Stripe Portal");

  await page.goto(portalUrl);
  await page.getByRole("link", { name: "Payment method" }).click();
  await expect(page.getByRole("heading", { name: "Payment method" })).toBeVisible();
  await expect(page.getByTestId("current-payment-method")).toHaveText("Visa •••• 4242 (expires 12/" + String(new Date().getUTCFullYear() + 3) + ")");
  // A live account with Stripe: no sandbox picker.
  await expect(page.getByTestId("payment-method")).toHaveCount(0);

  await save(page, "4000 0000 0000 0002");
  await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
  expect((await server.get(`/customers/${customer.id}/payment-methods`)).body.items).toHaveLength(1);

  await save(page, "4000 0000 0000 3220");
  await page.getByRole("dialog", { name: "3-D Secure authentication" }).getByRole("button", { name: "Complete authentication" }).click();
  await page.waitForURL(/\/portal\/payment-method\?setup_intent=seti_/);
  await expect(page.getByText("Your card is saved")).toBeVisible();

  const methods = (await server.get(`/customers/${customer.id}/payment-methods`)).body.items as { id: string; card: { last4: string } }[];
  expect(methods.map((method) => method.card.last4)).toEqual(["3220", "4242"]);
  const saved = methods[0]!;
  expect((await server.get(`/subscriptions/${subscription.id}`)).body.default_payment_method).toBe(saved.id);
  await expect(page.getByTestId("current-payment-method")).toContainText("Visa •••• 3220");

  // Stripe's webhook arrives too: still one pm_, one payment_method.attached for it.
  const setupId = new URL(page.url()).searchParams.get("setup_intent")!;
  await expect
    .poll(async () => (await standIn().state()).deliveries.some((delivery) => delivery.endpointId === endpoint && delivery.type === "setup_intent.succeeded" && delivery.status === 200))
    .toBe(true);
  expect((await standIn().state()).setupIntents.find((setup) => setup.id === setupId)).toMatchObject({ status: "succeeded", usage: "off_session" });
  await page.reload();
  await expect(page.getByText("Your card is saved")).toBeVisible();
  expect((await server.get(`/customers/${customer.id}/payment-methods`)).body.items).toHaveLength(2);
  const attached = (await server.get(`/${merchant.accountId}/events?event_type=payment_method.attached`)).body.items as { aggregate_id: string }[];
  expect(attached.filter((event) => event.aggregate_id === saved.id)).toHaveLength(1);
  expect(attached.filter((event) => event.aggregate_id === visa.id)).toHaveLength(1);

  // As Stripe's portal: the card just saved is the customer's default too (docs/payments.md, "The customer's default payment method").
  expect((await server.get(`/customers/${customer.id}`)).body.default_payment_method).toBe(saved.id);
  // The dashboard's customer page shows it, and makes the first card the default again (POST /customers/{id}).
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers/${customer.id}`);
  const methodsCard = page.locator("section", { has: page.getByRole("heading", { name: "Payment methods", exact: true }) });
  await expect(methodsCard.getByTestId("customer-default-payment-method")).toHaveText(saved.id);
  await expect(methodsCard.getByTestId(`payment-method-${saved.id}`)).toContainText("Default");
  await expect(methodsCard.getByTestId(`payment-method-${saved.id}`).getByRole("button", { name: "Make default" })).toHaveCount(0);
  await expect(methodsCard.getByTestId(`payment-method-${visa.id}`)).toContainText("4242");
  await methodsCard.getByTestId(`payment-method-${visa.id}`).getByRole("button", { name: "Make default" }).click();
  await expect(methodsCard.getByTestId("customer-default-payment-method")).toHaveText(visa.id);
  await expect(methodsCard.getByTestId(`payment-method-${saved.id}`).getByRole("button", { name: "Make default" })).toBeVisible();
  expect((await server.get(`/customers/${customer.id}`)).body.default_payment_method).toBe(visa.id);
  const updates = (await server.get(`/${merchant.accountId}/events?event_type=customer.updated&aggregate_id=${customer.id}`)).body.items as { data: { default_payment_method: string | null } }[];
  expect(updates[0]!.data.default_payment_method).toBe(visa.id);
});

test("stripe portal: a 3-D Secure challenge that fails shows the error and keeps the current card", async ({ page }) => {
  await installFakeStripe(page, standIn().url);
  const { server, customer, visa, subscription, portalUrl } = await portalWithSavedCard(page, "Stripe Portal Refused");
  await page.goto(portalUrl);
  const response = await page.goto(new URL("/portal/payment-method", portalUrl).toString());
  // The portal's policy lets the real Stripe.js run (the browser bypasses it here: the fake reaches the stand-in).
  const policy = response?.headers()["content-security-policy"] ?? "";
  expect(policy).toMatch(/script-src [^;]*https:\/\/js\.stripe\.com/);
  expect(policy).toMatch(/frame-src [^;]*https:\/\/js\.stripe\.com[^;]*https:\/\/hooks\.stripe\.com/);
  expect(policy).toMatch(/connect-src 'self' https:\/\/api\.stripe\.com/);
  expect(policy).toMatch(/img-src 'self' data: blob: https:/);
  await save(page, "4000 0000 0000 3220");
  await page.getByRole("dialog", { name: "3-D Secure authentication" }).getByRole("button", { name: "Fail authentication" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The customer failed 3-D Secure authentication." })).toBeVisible();
  expect((await server.get(`/customers/${customer.id}/payment-methods`)).body.items.map((method: { id: string }) => method.id)).toEqual([visa.id]);
  expect((await server.get(`/subscriptions/${subscription.id}`)).body.default_payment_method).toBe(visa.id);
  await expect(page.getByRole("button", { name: "Save card" })).toBeEnabled();
});
