import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { apiDatabase } from "../helpers/api-database";
import { newSandbox } from "../helpers/merchant";
import { monthlyPrice, newPortalSession, openLink, portalOrigin } from "../helpers/portal";
import { eventually } from "../helpers/receiver";
import { newStripeSandbox, sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * The portal's "update payment method" on an account connected to Stripe (docs/payments.md,
 * "Saving a card with a SetupIntent"): the server makes a SetupIntent, the browser confirms it
 * (here as Stripe.js does: the publishable key and the client secret, at the stand-in), and the
 * card is recorded only from Stripe's word, the `setup_intent.succeeded` webhook or the retrieve on
 * the return URL, exactly once when both arrive. Another customer's setup changes nothing.
 */

const standIn = sharedStripeStandIn();
/** The job applies a stored webhook after its 200: waits tell a hang from a busy machine. */
const WAIT_MS = 60_000;

const sql = apiDatabase();

async function stripeMerchant() {
  const s = await newStripeSandbox("setup");
  const price = await monthlyPrice(s.client, s.account, 1500);
  return { ...s, price };
}
type Merchant = Awaited<ReturnType<typeof stripeMerchant>>;

/** A customer with a live subscription (paid with a sandbox method) and a portal cookie. */
async function portalCustomer(m: Merchant, email: string) {
  const customer = (await m.ok(m.client.post(`/${m.account}/customers`, { email }))).id as string;
  const subscription = (await m.ok(m.client.post(`/${m.account}/subscriptions`, { customer, items: [{ price: m.price }], default_payment_method: "pm_sandbox_succeeds" })))
    .id as string;
  const session = await newPortalSession(m.client, m.account, { customer });
  const cookie = (await openLink(session.url)).cookie!;
  return { customer, subscription, cookie };
}

/** The page's Save: a SetupIntent for the session's customer, answered with its client secret. */
async function startSetup(cookie: string | null, headers: Record<string, string> = {}) {
  const response = await fetch(`${portalOrigin()}/portal/payment-method/setup`, { method: "POST", headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers } });
  return { status: response.status, body: (await response.json()) as Json };
}

/** What Stripe.js does in the browser: confirms the SetupIntent with the publishable key, the client secret and the card entered. */
async function confirmInBrowser(m: Merchant, clientSecret: string, card: string) {
  const setupId = clientSecret.split("_secret_")[0]!;
  const response = await fetch(`${standIn.url}/v1/setup_intents/${setupId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: m.keys.publishable_key, client_secret: clientSecret, payment_method: card }).toString(),
  });
  return { status: response.status, setupId, body: (await response.json()) as Json };
}

/** Stripe.js's return to the page: the server re-reads the setup and answers the page. */
async function returnTo(cookie: string, setupId: string, redirectStatus = "succeeded") {
  const query = new URLSearchParams({ setup_intent: setupId, setup_intent_client_secret: "ignored", redirect_status: redirectStatus });
  const response = await fetch(`${portalOrigin()}/portal/payment-method?${query}`, { headers: { Cookie: cookie } });
  expect(response.status).toBe(200);
  return response.text();
}

async function methodsOf(m: Merchant, customer: string): Promise<Json[]> {
  return (await m.ok(m.client.get(`/${m.account}/customers/${customer}/payment-methods`))).items as Json[];
}
async function eventsOf(m: Merchant, type: string): Promise<Json[]> {
  return (await m.ok(m.client.get(`/${m.account}/events?event_type=${type}&limit=100`))).items as Json[];
}
const defaultOf = async (m: Merchant, subscription: string) => (await m.ok(m.client.get(`/${m.account}/subscriptions/${subscription}`))).default_payment_method as string;

/** The stored `setup_intent.succeeded` of the setup, once the job has applied (or ignored) it. */
async function webhookApplied(m: Merchant, setupId: string): Promise<string> {
  const rows = await eventually(
    async () => sql`SELECT status FROM processor_events WHERE account_id = ${m.account} AND type = 'setup_intent.succeeded' AND object_reference = ${setupId}`,
    (found) => found.length === 1 && found[0]!.status !== "pending",
    WAIT_MS,
  );
  return rows[0]!.status as string;
}

/** Recorded once: one pm_ with Stripe's card, one payment_method.attached, the subscription's default set by one customer.subscription.updated. */
async function expectRecordedOnce(m: Merchant, customer: string, subscription: string) {
  const methods = await methodsOf(m, customer);
  expect(methods).toEqual([
    expect.objectContaining({ customer, processor: "stripe", processor_payment_method: expect.stringMatching(/^pm_/), card: expect.objectContaining({ brand: "visa", last4: "4242" }) }),
  ]);
  const method = methods[0]!;
  expect(await defaultOf(m, subscription)).toBe(method.id);
  const attached = (await eventsOf(m, "payment_method.attached")).filter((event) => event.aggregate_id === method.id);
  expect(attached).toHaveLength(1);
  const updated = (await eventsOf(m, "customer.subscription.updated")).filter((event) => (event.data as Json).default_payment_method === method.id);
  expect(updated).toHaveLength(1);
  return method;
}

describe("portal update payment method through a Stripe SetupIntent", () => {
  it("the return comes first (the webhook held): recorded from the retrieve; the webhook delivered after, and a reload, change nothing", async () => {
    const m = await stripeMerchant();
    const { customer, subscription, cookie } = await portalCustomer(m, "return-first@example.com");
    const started = await startSetup(cookie);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const setupId = String(started.body.client_secret).split("_secret_")[0]!;
    const atStripe = (await standIn.state()).setupIntents.find((setup) => setup.id === setupId)!;
    // Made for the customer's counterpart at Stripe, to be charged off-session later, with our customer as metadata.
    expect(atStripe).toMatchObject({ usage: "off_session", status: "requires_payment_method", metadata: { customer } });

    await standIn.endpointDelivery(m.endpoint, { hold: true });
    const confirmed = await confirmInBrowser(m, String(started.body.client_secret), "pm_card_visa");
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe("succeeded");
    // Nothing is recorded from the browser's confirm alone.
    expect(await methodsOf(m, customer)).toEqual([]);

    expect(await returnTo(cookie, setupId)).toContain("Your card is saved");
    const method = await expectRecordedOnce(m, customer, subscription);

    await standIn.endpointDelivery(m.endpoint, { hold: false });
    await standIn.flushEndpoint(m.endpoint);
    expect(await webhookApplied(m, setupId)).toBe("ignored");
    expect(await returnTo(cookie, setupId)).toContain("Your card is saved");
    expect((await expectRecordedOnce(m, customer, subscription)).id).toBe(method.id);
  });

  it("the webhook comes first: recorded by the job; the return then finds it recorded and changes nothing", async () => {
    const m = await stripeMerchant();
    const { customer, subscription, cookie } = await portalCustomer(m, "webhook-first@example.com");
    const started = await startSetup(cookie);
    const confirmed = await confirmInBrowser(m, String(started.body.client_secret), "pm_card_visa");
    expect(confirmed.status).toBe(200);
    expect(await webhookApplied(m, confirmed.setupId)).toBe("applied");
    const method = await expectRecordedOnce(m, customer, subscription);
    expect(await returnTo(cookie, confirmed.setupId)).toContain("Your card is saved");
    expect((await expectRecordedOnce(m, customer, subscription)).id).toBe(method.id);
  });

  it("refusals: another customer's setup id, a declined card, no session, another site: nothing changes", async () => {
    const m = await stripeMerchant();
    const ada = await portalCustomer(m, "ada@example.com");
    const eve = await portalCustomer(m, "eve@example.com");
    await standIn.endpointDelivery(m.endpoint, { hold: true });

    // Ada's card, confirmed at Stripe; Eve comes back with Ada's setup id: not hers.
    const started = await startSetup(ada.cookie);
    const confirmed = await confirmInBrowser(m, String(started.body.client_secret), "pm_card_visa");
    expect(confirmed.status).toBe(200);
    expect(await returnTo(eve.cookie, confirmed.setupId)).toContain("This card setup is not yours");
    expect(await methodsOf(m, eve.customer)).toEqual([]);
    expect(await methodsOf(m, ada.customer)).toEqual([]);
    expect(await defaultOf(m, eve.subscription)).toBe("pm_sandbox_succeeds");
    expect(await defaultOf(m, ada.subscription)).toBe("pm_sandbox_succeeds");
    // A setup id this service never made.
    expect(await returnTo(eve.cookie, "seti_made_elsewhere")).toContain("This card setup is not yours");
    expect(await eventsOf(m, "payment_method.attached")).toEqual([]);

    // A declined card: Stripe refuses it in the browser; the return (redirect_status failed) records nothing.
    const declinedStart = await startSetup(eve.cookie);
    const declined = await confirmInBrowser(m, String(declinedStart.body.client_secret), "pm_card_chargeDeclined");
    expect(declined.status).toBe(402);
    expect(await returnTo(eve.cookie, declined.setupId, "failed")).toContain("The card could not be saved");
    expect(await methodsOf(m, eve.customer)).toEqual([]);

    // No portal session, or another site's page: no SetupIntent is made.
    const before = (await standIn.state()).setupIntents.length;
    expect((await startSetup(null)).status).toBe(401);
    expect((await startSetup(eve.cookie, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await standIn.state()).setupIntents.length).toBe(before);

    // Ada's own return still records her card, once; the held webhooks then change nothing.
    expect(await returnTo(ada.cookie, confirmed.setupId)).toContain("Your card is saved");
    await expectRecordedOnce(m, ada.customer, ada.subscription);
    await standIn.endpointDelivery(m.endpoint, { hold: false });
    await standIn.flushEndpoint(m.endpoint);
    expect(await webhookApplied(m, confirmed.setupId)).toBe("ignored");
    await expectRecordedOnce(m, ada.customer, ada.subscription);
    expect(await methodsOf(m, eve.customer)).toEqual([]);
  });

  it("an account without a processor that saves cards in the browser answers 409 and keeps the sandbox picker", async () => {
    const s = await newSandbox();
    const price = await monthlyPrice(s.client, s.account, 900);
    const customer = (await s.ok(s.client.post(`/${s.account}/customers`, { email: "sandbox@example.com" }))).id as string;
    await s.ok(s.client.post(`/${s.account}/subscriptions`, { customer, items: [{ price }], default_payment_method: "pm_sandbox_succeeds" }));
    const session = await newPortalSession(s.client, s.account, { customer });
    const cookie = (await openLink(session.url)).cookie!;
    const started = await startSetup(cookie);
    expect(started.status).toBe(409);
    const page = await (await fetch(`${portalOrigin()}/portal/payment-method`, { headers: { Cookie: cookie } })).text();
    expect(page).toContain('data-testid="payment-method"');
    expect(page).not.toContain("Save card");
  });

  it("checkout: payment_intent_data.setup_future_usage is taken in payment mode only, and only off_session", async () => {
    const s = await newSandbox();
    const price = await monthlyPrice(s.client, s.account, 700);
    const base = { line_items: [{ price }], success_url: "https://example.com/thanks" };
    const refused = await s.client.post(`/${s.account}/checkout/sessions`, { ...base, mode: "subscription", payment_intent_data: { setup_future_usage: "off_session" } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: "payment_intent_data", message: "Only in payment mode." })]);
    const product = (await s.ok(s.client.post(`/${s.account}/products`, { name: "Once" }))).id as string;
    const once = (await s.ok(s.client.post(`/${s.account}/prices`, { product, currency: "usd", unit_amount_atom: 700, type: "one_time" }))).id as string;
    const onSession = await s.client.post(`/${s.account}/checkout/sessions`, { ...base, line_items: [{ price: once }], mode: "payment", payment_intent_data: { setup_future_usage: "on_session" } });
    expect(onSession.status, onSession.text).toBe(422);
    const made = await s.client.post(`/${s.account}/checkout/sessions`, { ...base, line_items: [{ price: once }], mode: "payment", payment_intent_data: { setup_future_usage: "off_session" } });
    expect(made.status, made.text).toBe(201);
  });
});
