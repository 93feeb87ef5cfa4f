import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { connectStripe, stripeStandInClient } from "../tests/helpers/stripe-stand-in";
import { installFakeStripe } from "./fake-stripe";
import { api, createToken, signUp } from "./fixtures";

/*
 * A live account connected to Stripe takes cards on its hosted checkout and invoice pages through
 * Stripe.js and the Payment Element (docs/payments.md, "The hosted pages with Stripe"). Stripe.js
 * is the fake of ./fake-stripe.ts, injected before the page loads; Stripe is the stand-in the app
 * under test talks to (STRIPE_API_BASE), which sends the signed webhooks. The pages complete only
 * from Stripe's word: the webhook, or the server's retrieve on the return URL.
 */

/*
 * The pages' Content-Security-Policy lets Stripe.js reach https://api.stripe.com only; the fake
 * talks to the stand-in instead, so the browser is told to bypass the CSP, and the first test
 * checks the policy names what the real Stripe.js needs.
 */
test.use({ bypassCSP: true });
// Each test signs up, connects Stripe and pays through the browser, the webhook and the job: on a
// loaded machine that takes longer than the suite's 90 s.
test.describe.configure({ timeout: 240_000 });

function standIn() {
  const url = process.env.E2E_STRIPE_STAND_IN_URL;
  if (!url) throw new Error("E2E_STRIPE_STAND_IN_URL: the Stripe stand-in the app under test talks to (e2e/global-setup.ts starts one).");
  return stripeStandInClient(url);
}

type MerchantSite = { url: string; thanks: (sessionId: string) => string; close: () => Promise<void> };

/** The merchant's own site, where checkout sends the customer back (`thanks`: the page a paid session returns to). */
async function merchantSite(): Promise<MerchantSite> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html" });
    response.end("<!doctype html><title>Thanks</title><h1>Thanks for your order</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return { url, thanks: (sessionId) => `${url}/thanks?session_id=${sessionId}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A live merchant connected to Stripe (the stand-in) with live keys, its server token and webhook endpoint. */
async function connectedMerchant(page: Page, company: string) {
  const merchant = await signUp(page, company);
  const server = api(await createToken(page, merchant, "Checkout server"));
  const suffix = randomBytes(6).toString("hex");
  const endpoint = await connectStripe(server, merchant.accountId, { processor: "stripe", secret_key: `sk_live_e2e${suffix}`, publishable_key: `pk_live_e2e${suffix}` });
  return { merchant, server, endpoint };
}

/**
 * A test's setting: Stripe.js faked on the page, a live merchant connected to Stripe, and the
 * merchant's site, closed after `run` whether it passed or failed.
 */
async function onMerchantSite(page: Page, company: string, run: (setting: Awaited<ReturnType<typeof connectedMerchant>> & { site: MerchantSite }) => Promise<void>) {
  const site = await merchantSite();
  try {
    await installFakeStripe(page, standIn().url);
    await run({ ...(await connectedMerchant(page, company)), site });
  } finally {
    await site.close();
  }
}

/** A session of one price of a new product, sending the customer back to the merchant's site (`extra`: more of the session's fields). */
async function checkoutSession(
  server: ReturnType<typeof api>,
  successUrl: string,
  mode: "payment" | "subscription",
  productName: string,
  priceFields: Record<string, unknown>,
  extra: Record<string, unknown>,
) {
  const product = (await server.post("/products", { name: productName })).body;
  const price = (await server.post("/prices", { product: product.id, currency: "usd", ...priceFields })).body;
  const created = await server.post("/checkout/sessions", {
    mode,
    line_items: [{ price: price.id }],
    success_url: `${successUrl}/thanks?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${successUrl}/cart`,
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** A payment-mode session of a one-time price. */
function paymentSession(server: ReturnType<typeof api>, successUrl: string, amountAtom: number, extra: Record<string, unknown> = {}) {
  return checkoutSession(server, successUrl, "payment", "Espresso machine", { unit_amount_atom: amountAtom, type: "one_time" }, extra);
}

/** A subscription-mode session of a monthly price (with `extra`: a trial). */
function subscriptionSession(server: ReturnType<typeof api>, successUrl: string, amountAtom: number, extra: Record<string, unknown> = {}) {
  return checkoutSession(server, successUrl, "subscription", "Coffee club", { unit_amount_atom: amountAtom, type: "recurring", recurring: { interval: "month" } }, extra);
}

/** The stand-in delivered the PaymentIntent's `payment_intent.succeeded` to the merchant's endpoint, and the app took it (200). */
async function webhookTaken(endpoint: string, paymentIntent: string) {
  const stripe = standIn();
  await expect
    .poll(async () => {
      const state = await stripe.state();
      const intent = state.paymentIntents.find((candidate) => candidate.id === paymentIntent);
      const delivered = state.deliveries.some((delivery) => delivery.endpointId === endpoint && delivery.type === "payment_intent.succeeded" && delivery.status === 200);
      return intent?.status === "succeeded" && delivered;
    })
    .toBe(true);
}

/**
 * Waits for Stripe.js's round trip to end on the merchant's page. When it does not, the failure
 * says where the page stopped (a refusal on the page, a Pay still pending, an error page) and what
 * Stripe has of the payment, instead of running out the test's time.
 */
async function returnedTo(page: Page, url: string) {
  try {
    await page.waitForURL(url, { timeout: 150_000 });
  } catch (error) {
    const shown = await page.locator("body").innerText({ timeout: 5_000 }).catch(() => "(no page)");
    const stripe = await standIn().state().catch(() => null);
    const intents = stripe?.paymentIntents.map((intent) => `${intent.id}: ${intent.status}`) ?? [];
    throw new Error(`The page did not return to ${url}; it is at ${page.url()} showing ${JSON.stringify(shown.slice(0, 600))}; Stripe has ${intents.slice(-3).join(", ")}. ${String(error)}`);
  }
}

async function pay(page: Page, card: string, label: RegExp | string) {
  await page.getByLabel("Card number").fill(card);
  await page.getByRole("button", { name: label }).click();
}

/** The customer, on the open checkout page, gives their email and pays with `card`. */
async function payAsAda(page: Page, card: string, label: string) {
  await page.getByLabel("Email").fill("ada@example.com");
  await pay(page, card, label);
}

/** The customer opens the session's page, pays with `card`, and Stripe.js's round trip brings them back to the merchant's thank-you page. */
async function payAndReturn(page: Page, site: MerchantSite, session: { id: string; url: string }, card: string, label: string) {
  await page.goto(session.url);
  await payAsAda(page, card, label);
  await returnedTo(page, site.thanks(session.id));
}

/** Our payment's PaymentIntent at Stripe (the stand-in), by the id it carries in its metadata. */
async function atStripe(paymentIntent: string) {
  return (await standIn().state()).paymentIntents.find((candidate) => candidate.metadata?.payment_intent === paymentIntent)!;
}

/** Completed once: the session, its one succeeded payment and one Stripe charge, one `checkout.session.completed`. */
async function expectCompletedOnce(server: ReturnType<typeof api>, accountId: string, sessionId: string, card: string) {
  const completed = (await server.get(`/checkout/sessions/${sessionId}`)).body;
  expect(completed).toMatchObject({ status: "complete", payment_status: "paid", customer_email: "ada@example.com" });
  const intent = (await server.get(`/payment-intents/${completed.payment_intent}`)).body;
  expect(intent).toMatchObject({ status: "succeeded", amount_received_atom: 4500, payment_method: card });
  const stripe = await standIn().state();
  const stripeIntent = stripe.paymentIntents.find((candidate) => candidate.metadata?.payment_intent === intent.id)!;
  expect(stripeIntent).toMatchObject({ status: "succeeded", amount_received: 4500 });
  expect(stripe.charges.filter((charge) => charge === stripeIntent.id)).toHaveLength(1);
  const events = (await server.get(`/${accountId}/events?event_type=checkout.session.completed`)).body.items;
  expect(events).toEqual([expect.objectContaining({ aggregate_id: sessionId, actor_type: "customer", actor_id: completed.customer })]);
  return { completed, stripeIntent };
}

/**
 * Completed once, then the webhook arrived too (before or after the return, as Stripe's timing
 * has it) and still one completion, one payment. Answers Stripe's PaymentIntent.
 */
async function expectCompletedOnceWithWebhook(server: ReturnType<typeof api>, accountId: string, endpoint: string, sessionId: string, card: string) {
  const { stripeIntent } = await expectCompletedOnce(server, accountId, sessionId, card);
  await webhookTaken(endpoint, stripeIntent.id);
  await expectCompletedOnce(server, accountId, sessionId, card);
  return stripeIntent;
}

test("stripe checkout: a card that succeeds pays the live session through Stripe.js, which completes once from Stripe's word", async ({ page }) =>
  onMerchantSite(page, "Stripe Espresso", async ({ site, merchant, server, endpoint }) => {
    const session = await paymentSession(server, site.url, 4500);

    const response = await page.goto(session.url);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/script-src [^;]*https:\/\/js\.stripe\.com/);
    expect(policy).toMatch(/frame-src [^;]*https:\/\/js\.stripe\.com[^;]*https:\/\/hooks\.stripe\.com/);
    expect(policy).toMatch(/connect-src 'self' https:\/\/api\.stripe\.com/);
    await expect(page.getByRole("heading", { name: "Stripe Espresso" })).toBeVisible();
    // A live page: no sandbox banner, no sandbox method picker; the Payment Element instead.
    await expect(page.getByText("Sandbox checkout")).toHaveCount(0);
    await expect(page.getByLabel("Payment method")).toHaveCount(0);
    await payAsAda(page, "4242 4242 4242 4242", "Pay $45.00");
    await returnedTo(page, site.thanks(session.id));

    const stripeIntent = await expectCompletedOnceWithWebhook(server, merchant.accountId, endpoint, session.id, "pm_card_visa");
    await page.goto(session.url);
    await expect(page.getByRole("heading", { name: "This checkout is complete" })).toBeVisible();
    // Stripe.js's return arriving after the webhook completed the session (the order of the two
    // is Stripe's): still on to the merchant's success page, and still one completion.
    const lateReturn = new URL(session.url);
    lateReturn.search = new URLSearchParams({ payment_intent: stripeIntent.id, payment_intent_client_secret: `${stripeIntent.id}_secret_late`, redirect_status: "succeeded" }).toString();
    await page.goto(lateReturn.toString());
    await returnedTo(page, site.thanks(session.id));
    await expectCompletedOnce(server, merchant.accountId, session.id, "pm_card_visa");
  }),
);

test("stripe checkout: a 3-D Secure challenge that succeeds, after a declined card, completes the session", async ({ page }) =>
  onMerchantSite(page, "Stripe Secure", async ({ site, merchant, server, endpoint }) => {
    const session = await paymentSession(server, site.url, 4500);

    await page.goto(session.url);
    // Declined: Stripe.js's error on the page, the session open.
    await payAsAda(page, "4000 0000 0000 0002", "Pay $45.00");
    await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
    expect((await server.get(`/checkout/sessions/${session.id}`)).body.status).toBe("open");

    // A card that asks for 3-D Secure: the bank's challenge, completed.
    await pay(page, "4000 0000 0000 3220", "Pay $45.00");
    const challenge = page.getByRole("dialog", { name: "3-D Secure authentication" });
    await expect(challenge).toBeVisible();
    expect((await server.get(`/checkout/sessions/${session.id}`)).body.status).toBe("open");
    await challenge.getByRole("button", { name: "Complete authentication" }).click();
    await returnedTo(page, site.thanks(session.id));

    await expectCompletedOnceWithWebhook(server, merchant.accountId, endpoint, session.id, "pm_card_threeDSecure2Required");
  }),
);

test("stripe checkout: a 3-D Secure challenge that fails shows the error and leaves the session open", async ({ page }) =>
  onMerchantSite(page, "Stripe Refused", async ({ site, server }) => {
    const session = await paymentSession(server, site.url, 4500);

    await page.goto(session.url);
    await payAsAda(page, "4000 0025 0000 3155", "Pay $45.00");
    await page.getByRole("dialog", { name: "3-D Secure authentication" }).getByRole("button", { name: "Fail authentication" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The customer failed 3-D Secure authentication." })).toBeVisible();
    // Still on the checkout page, nothing paid.
    expect(new URL(page.url()).pathname).toBe(new URL(session.url).pathname);
    const open = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect(open).toMatchObject({ status: "open", payment_status: "unpaid" });
    const stripe = await standIn().state();
    const stripeIntent = stripe.paymentIntents.find((candidate) => candidate.metadata?.payment_intent === open.payment_intent)!;
    expect(stripeIntent.status).toBe("requires_payment_method");
    expect(stripe.charges).not.toContain(stripeIntent.id);
    await expect(page.getByRole("button", { name: "Pay $45.00" })).toBeEnabled();
  }),
);

test("stripe hosted invoice: the customer pays the live invoice with a card through Stripe.js; it is paid once", async ({ page, browser }) => {
  const { merchant, server, endpoint } = await connectedMerchant(page, "Stripe Invoices");
  const customer = (await server.post("/customers", { email: "client@example.com", name: "Camille Martin" })).body;
  const draft = (await server.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 15000, description: "Photo session" }] })).body;
  const invoice = (await server.post(`/invoices/${draft.id}/finalize`)).body;
  expect(invoice.status).toBe("open");

  // The customer, signed out.
  const context = await browser.newContext({ bypassCSP: true });
  const visitor = await context.newPage();
  try {
    await installFakeStripe(visitor, standIn().url);
    await visitor.goto(invoice.hosted_invoice_url);
    await expect(visitor.getByTestId("invoice-status")).toHaveAttribute("data-status", "open");
    await expect(visitor.getByLabel("Payment method")).toHaveCount(0);
    await visitor.getByLabel("Card number").fill("4000 0000 0000 3220");
    await visitor.getByRole("button", { name: /^Pay/ }).click();
    await visitor.getByRole("dialog", { name: "3-D Secure authentication" }).getByRole("button", { name: "Complete authentication" }).click();
    // Back on the page from Stripe.js's return URL: the server read the payment at Stripe.
    await expect(visitor.getByTestId("invoice-status")).toHaveAttribute("data-status", "paid", { timeout: 60_000 });
    await expect(visitor.getByTestId("invoice-due")).toContainText("0.00");

    const paid = (await server.get(`/invoices/${invoice.id}`)).body;
    expect(paid).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 15000 });
    const intent = (await server.get(`/payment-intents/${paid.payment_intent}`)).body;
    expect(intent).toMatchObject({ status: "succeeded", amount_received_atom: 15000, payment_method: "pm_card_threeDSecure2Required" });
    const stripeIntent = await atStripe(intent.id);
    await webhookTaken(endpoint, stripeIntent.id);
    const events = (await server.get(`/${merchant.accountId}/events?event_type=invoice.paid`)).body.items;
    expect(events.filter((event: { aggregate_id: string }) => event.aggregate_id === invoice.id)).toHaveLength(1);
    expect((await standIn().state()).charges.filter((charge) => charge === stripeIntent.id)).toHaveLength(1);
  } finally {
    await context.close();
  }
});

test("stripe checkout: the return completes the session while Stripe's webhook is held; the webhook, delivered after, changes nothing", async ({ page }) =>
  onMerchantSite(page, "Stripe Return", async ({ site, merchant, server, endpoint }) => {
    const stripe = standIn();
    const session = await paymentSession(server, site.url, 4500);
    // This merchant's webhooks are held at Stripe: only the return URL's retrieve can complete the session.
    await stripe.endpointDelivery(endpoint, { hold: true });
    try {
      await payAndReturn(page, site, session, "4242 4242 4242 4242", "Pay $45.00");
      await expectCompletedOnce(server, merchant.accountId, session.id, "pm_card_visa");
      await stripe.flushEndpoint(endpoint);
    } finally {
      await stripe.endpointDelivery(endpoint, { hold: false });
    }
    await expectCompletedOnceWithWebhook(server, merchant.accountId, endpoint, session.id, "pm_card_visa");
  }),
);

test("stripe checkout: a session with payment_intent_data.setup_future_usage saves the card it is paid with for the customer, once", async ({ page }) =>
  onMerchantSite(page, "Stripe Saves", async ({ site, merchant, server, endpoint }) => {
    const session = await paymentSession(server, site.url, 4500, { payment_intent_data: { setup_future_usage: "off_session" } });
    await payAndReturn(page, site, session, "4242 4242 4242 4242", "Pay $45.00");

    const completed = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect(completed).toMatchObject({ status: "complete", payment_status: "paid" });
    const intent = (await server.get(`/payment-intents/${completed.payment_intent}`)).body;
    const stripeIntent = await atStripe(intent.id);
    // Stripe was asked to save it: the PaymentIntent's method is a new one, saved for the customer.
    expect(stripeIntent).toMatchObject({ status: "succeeded", setup_future_usage: "off_session" });
    expect(intent.payment_method).toBe(stripeIntent.payment_method);
    expect(intent.payment_method).not.toBe("pm_card_visa");

    const expectSavedOnce = async () => {
      const methods = (await server.get(`/customers/${completed.customer}/payment-methods`)).body.items;
      expect(methods).toEqual([expect.objectContaining({ processor: "stripe", processor_payment_method: stripeIntent.payment_method, card: expect.objectContaining({ brand: "visa", last4: "4242" }) })]);
      const attached = (await server.get(`/${merchant.accountId}/events?event_type=payment_method.attached`)).body.items;
      expect(attached.filter((event: { aggregate_id: string }) => event.aggregate_id === methods[0].id)).toHaveLength(1);
      return methods[0];
    };
    const saved = await expectSavedOnce();
    // The webhook arrives too (before or after the return): still one saved method.
    await webhookTaken(endpoint, stripeIntent.id);
    await expect.poll(async () => (await expectSavedOnce()).id).toBe(saved.id);
    // Charged off-session later with it: a merchant's payment of the customer's next order.
    const later = await server.post("/payment-intents", { amount_atom: 1200, currency: "usd", customer: completed.customer, payment_method: saved.id, confirm: true });
    expect([200, 201], later.text).toContain(later.status);
    expect(later.body.status).toBe("succeeded");
  }),
);

test("stripe checkout: a session without setup_future_usage saves no card", async ({ page }) =>
  onMerchantSite(page, "Stripe Keeps Nothing", async ({ site, server }) => {
    const session = await paymentSession(server, site.url, 4500);
    await payAndReturn(page, site, session, "4242 4242 4242 4242", "Pay $45.00");
    const completed = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect((await server.get(`/customers/${completed.customer}/payment-methods`)).body.items).toEqual([]);
  }),
);

test("stripe checkout: a subscription session is paid through Stripe.js (a decline first): the subscription starts once, its first invoice paid, the card saved as its default", async ({ page }) =>
  onMerchantSite(page, "Stripe Coffee Club", async ({ site, merchant, server, endpoint }) => {
    const session = await subscriptionSession(server, site.url, 1800);
    await page.goto(session.url);
    await expect(page.getByTestId("payment-element")).toBeVisible();
    // A decline: Stripe.js's error on the page; nothing starts.
    await payAsAda(page, "4000 0000 0000 0002", "Subscribe and pay $18.00");
    await expect(page.getByRole("alert").filter({ hasText: "Your card was declined." })).toBeVisible();
    expect((await server.get(`/checkout/sessions/${session.id}`)).body.status).toBe("open");
    expect((await server.get("/subscriptions")).body.items).toEqual([]);

    await pay(page, "4242 4242 4242 4242", "Subscribe and pay $18.00");
    await returnedTo(page, site.thanks(session.id));

    const completed = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect(completed).toMatchObject({ status: "complete", mode: "subscription", customer_email: "ada@example.com", subscription: expect.stringMatching(/^sub_/) });
    const stripeIntent = await atStripe(completed.payment_intent);
    expect(stripeIntent).toMatchObject({ status: "succeeded", amount: 1800, setup_future_usage: "off_session" });
    await webhookTaken(endpoint, stripeIntent.id);
    /** What the merchant sees of it: read whole, so that a failed poll shows it. */
    const started = async () => {
      const methods = (await server.get(`/customers/${completed.customer}/payment-methods`)).body.items;
      const subscriptions = (await server.get("/subscriptions")).body.items;
      const invoice = (await server.get(`/invoices/${completed.invoice}`)).body;
      const counts: Record<string, number> = {};
      for (const type of ["checkout.session.completed", "customer.subscription.created", "invoice.paid", "payment_method.attached"]) {
        counts[type] = (await server.get(`/${merchant.accountId}/events?event_type=${type}`)).body.items.length;
      }
      return {
        methods: methods.map((method: { processor: string; card: { last4: string } }) => `${method.processor} ${method.card.last4}`),
        subscriptions: subscriptions.map((row: { id: string; status: string; default_payment_method: string }) => [row.id, row.status, row.default_payment_method]),
        invoice: [invoice.status, invoice.paid_amount_atom, invoice.payment_intent],
        counts,
        method: methods[0]?.id,
      };
    };
    // The webhook, whether it came before or after the return, changed nothing more.
    const once = (seen: Awaited<ReturnType<typeof started>>) => ({
      methods: ["stripe 4242"],
      subscriptions: [[completed.subscription, "active", seen.method]],
      invoice: ["paid", 1800, completed.payment_intent],
      counts: { "checkout.session.completed": 1, "customer.subscription.created": 1, "invoice.paid": 1, "payment_method.attached": 1 },
      method: seen.method,
    });
    await expect.poll(async () => { const seen = await started(); return JSON.stringify(seen) === JSON.stringify(once(seen)) ? "once" : JSON.stringify(seen); }, { timeout: 60_000 }).toBe("once");
  }),
);

test("stripe checkout: a subscription with a trial collects the card with a SetupIntent and starts trialing with it as default", async ({ page }) =>
  onMerchantSite(page, "Stripe Trial Club", async ({ site, server }) => {
    const session = await subscriptionSession(server, site.url, 1800, { subscription_data: { trial_period_days: 7 } });
    await payAndReturn(page, site, session, "4242 4242 4242 4242", "Start trial");
    const completed = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect(completed).toMatchObject({ status: "complete", payment_intent: null, invoice: null, subscription: expect.stringMatching(/^sub_/) });
    const methods = (await server.get(`/customers/${completed.customer}/payment-methods`)).body.items;
    expect(methods).toEqual([expect.objectContaining({ processor: "stripe", card: expect.objectContaining({ last4: "4242" }) })]);
    expect((await server.get(`/subscriptions/${completed.subscription}`)).body).toMatchObject({ status: "trialing", default_payment_method: methods[0].id });
  }),
);
