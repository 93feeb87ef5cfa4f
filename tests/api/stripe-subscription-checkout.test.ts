import { describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { apiDatabase } from "../helpers/api-database";
import { newSandbox } from "../helpers/merchant";
import { monthlyPrice, portalOrigin } from "../helpers/portal";
import { eventually } from "../helpers/receiver";
import { callActionWith } from "../helpers/server-action";
import { newStripeSandbox, sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * A subscription-mode checkout paid through the account's Stripe (docs/payments.md, "The hosted
 * pages with Stripe"): the page's Pay (its server action, called here as the page calls it) makes
 * the first invoice's PaymentIntent (saving the card) or, for a trial, a SetupIntent; the browser
 * confirms it at Stripe (here as Stripe.js does: the publishable key and the client secret, at the
 * stand-in); the subscription starts only from Stripe's word (the webhook or the return URL's
 * retrieve), once when both arrive. Then the clock renews it, charging the saved card off-session.
 * A sandbox account connected to Stripe test keys, so that its test clock can move the renewal.
 */

const standIn = sharedStripeStandIn();
/** The job applies a stored webhook after its 200, and a renewal's charge after its commit: waits tell a hang from a busy machine. */
const WAIT_MS = 60_000;
const DAY = 86_400_000;
const until = <T>(read: () => Promise<T>, accept: (value: T) => boolean) => eventually(read, accept, WAIT_MS);

const sql = apiDatabase();

async function stripeMerchant() {
  const s = await newStripeSandbox("subco");
  const price = await monthlyPrice(s.client, s.account, 2500);
  const session = async (extra: Record<string, unknown> = {}) =>
    s.ok(s.client.post(`/${s.account}/checkout/sessions`, { mode: "subscription", line_items: [{ price }], success_url: "https://merchant.example/thanks", ...extra }));
  // Any of the account's GET paths (the typed client names each; these are built from parts).
  const get = (url: string) => s.ok(s.client.get(`/${s.account}${url}` as Parameters<typeof s.client.get>[0]));
  const events = async (type: string) => ((await get(`/events?event_type=${type}&limit=100`)).items as Json[]);
  const advance = (to: number) => s.ok(s.client.post(`/${s.account}/test-clock/advance`, { to: new Date(to).toISOString() }));
  return { ...s, price, session, get, events, advance };
}
type Merchant = Awaited<ReturnType<typeof stripeMerchant>>;

/** The hosted page's Pay: its server action (the session id bound, the email typed), as the page's form calls it. */
async function pay(sessionId: string, email: string) {
  const origin = portalOrigin();
  // The customer has the page open before Pay, as a browser does.
  const page = await fetch(`${origin}/checkout/${sessionId}`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('data-testid="payment-element"');
  const { result } = await callActionWith<{ ok: boolean; clientSecret?: string; message?: string }>(origin, `/checkout/${sessionId}`, "startCheckoutPaymentAction", [
    sessionId,
    email,
  ]);
  return result;
}

/** What Stripe.js does in the browser: confirms the PaymentIntent (or SetupIntent) with the publishable key, its client secret and the card. */
async function confirmInBrowser(m: Merchant, clientSecret: string, card: string) {
  const id = clientSecret.split("_secret_")[0]!;
  const kind = id.startsWith("seti_") ? "setup_intents" : "payment_intents";
  const response = await fetch(`${standIn.url}/v1/${kind}/${id}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: m.keys.publishable_key, client_secret: clientSecret, payment_method: card, return_url: `${portalOrigin()}/checkout/x` }).toString(),
  });
  return { status: response.status, id, body: (await response.json()) as Json };
}

/** Stripe.js's return to the page: the server re-reads the payment (or setup) at Stripe; a completed session redirects to success_url. */
async function returnTo(sessionId: string, reference: string, redirectStatus = "succeeded") {
  const name = reference.startsWith("seti_") ? "setup_intent" : "payment_intent";
  const query = new URLSearchParams({ [name]: reference, [`${name}_client_secret`]: "ignored", redirect_status: redirectStatus });
  const response = await fetch(`${portalOrigin()}/checkout/${sessionId}?${query}`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), text: response.status === 200 ? await response.text() : "" };
}

/** The stored webhook of the object, once the job has applied (or ignored) it. */
async function webhookLabelled(m: Merchant, type: string, reference: string): Promise<string> {
  const rows = await until(
    async () => sql`SELECT status FROM processor_events WHERE account_id = ${m.account} AND type = ${type} AND object_reference = ${reference}`,
    (found) => found.length === 1 && found[0]!.status !== "pending",
  );
  return rows[0]!.status as string;
}

const completed = (m: Merchant, sessionId: string) => until(() => m.get(`/checkout/sessions/${sessionId}`), (session) => session.status === "complete");

/**
 * Started once: the session complete with one subscription (active, the saved card its default),
 * its first invoice paid by the session's intent, one Stripe charge, the card saved once
 * (payment_method.attached), one customer.subscription.created, invoice.paid and checkout.session.completed.
 */
async function expectStartedOnce(m: Merchant, sessionId: string, stripeIntent: string) {
  const session = await m.get(`/checkout/sessions/${sessionId}`);
  expect(session).toMatchObject({ status: "complete", mode: "subscription", customer_email: "ada@example.com", subscription: expect.stringMatching(/^sub_/), invoice: expect.any(String) });
  const customer = session.customer as string;
  const methods = (await m.get(`/customers/${customer}/payment-methods`)).items as Json[];
  expect(methods).toEqual([expect.objectContaining({ customer, processor: "stripe", processor_payment_method: expect.stringMatching(/^pm_/), card: expect.objectContaining({ last4: "4242" }) })]);
  const subscriptions = (await m.get(`/subscriptions?customer=${customer}`)).items as Json[];
  expect(subscriptions).toEqual([expect.objectContaining({ id: session.subscription, status: "active", default_payment_method: methods[0]!.id, latest_invoice: session.invoice })]);
  const invoice = await m.get(`/invoices/${session.invoice}`);
  expect(invoice).toMatchObject({ status: "paid", paid_amount_atom: 2500, payment_intent: session.payment_intent });
  const intent = await m.get(`/payment-intents/${session.payment_intent}`);
  expect(intent).toMatchObject({ status: "succeeded", amount_received_atom: 2500, invoice: session.invoice });
  const stripe = await standIn.state();
  const atStripe = stripe.paymentIntents.find((candidate) => candidate.id === stripeIntent)!;
  expect(atStripe).toMatchObject({ status: "succeeded", setup_future_usage: "off_session", metadata: { payment_intent: session.payment_intent } });
  expect(stripe.charges.filter((charge) => charge === stripeIntent)).toHaveLength(1);
  for (const type of ["checkout.session.completed", "customer.subscription.created", "invoice.paid", "payment_method.attached"]) {
    expect((await m.events(type)).length, type).toBe(1);
  }
  return { session, subscription: subscriptions[0]!, method: methods[0]! };
}

/** A session paid up to Stripe's confirmation: the Pay, then Stripe.js's confirm of the answered client secret with the card. */
async function payAtStripe(m: Merchant, sessionId: string, card = "pm_card_visa") {
  const started = await pay(sessionId, "ada@example.com");
  expect(started.ok, JSON.stringify(started)).toBe(true);
  const confirmed = await confirmInBrowser(m, started.clientSecret!, card);
  return { started, confirmed };
}

describe("subscription checkout paid through Stripe", () => {
  it("the webhook starts the subscription; the return after it changes nothing; then the renewal charges the saved card off-session", async () => {
    const m = await stripeMerchant();
    const session = await m.session();
    const { confirmed } = await payAtStripe(m, session.id as string);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe("succeeded");
    await completed(m, session.id as string);
    expect(await webhookLabelled(m, "payment_intent.succeeded", confirmed.id)).toBe("applied");
    const { subscription, method } = await expectStartedOnce(m, session.id as string, confirmed.id);

    const back = await returnTo(session.id as string, confirmed.id);
    expect(back.location).toBe("https://merchant.example/thanks");
    await expectStartedOnce(m, session.id as string, confirmed.id);

    // The renewal: the clock past the period's end charges the saved card off-session, once.
    await m.advance(Date.parse(subscription.current_period_end as string) + DAY);
    const renewed = await until(() => m.get(`/subscriptions/${subscription.id}`), (row) => row.latest_invoice !== subscription.latest_invoice);
    const invoice = await until(() => m.get(`/invoices/${renewed.latest_invoice}`), (row) => row.status === "paid");
    expect(invoice).toMatchObject({ paid_amount_atom: 2500 });
    const stripe = await standIn.state();
    const renewal = stripe.paymentIntents.filter((intent) => intent.metadata.payment_intent === invoice.payment_intent);
    expect(renewal).toHaveLength(1);
    expect(renewal[0]).toMatchObject({ status: "succeeded", amount: 2500, payment_method: method.processor_payment_method, customer: expect.stringMatching(/^cus_/) });
    expect(stripe.charges.filter((charge) => charge === renewal[0]!.id)).toHaveLength(1);
    expect((await m.get(`/subscriptions/${subscription.id}`)).status).toBe("active");
  });

  it("the return comes first with the webhook held: started from the retrieve; the webhook delivered after changes nothing", async () => {
    const m = await stripeMerchant();
    const session = await m.session();
    await standIn.endpointDelivery(m.endpoint, { hold: true });
    const { confirmed } = await payAtStripe(m, session.id as string);
    expect(confirmed.body.status).toBe("succeeded");
    // Nothing from the browser's confirm alone.
    expect((await m.get(`/checkout/sessions/${session.id}`)).status).toBe("open");
    expect(((await m.get(`/subscriptions`)).items as Json[]).length).toBe(0);

    const back = await returnTo(session.id as string, confirmed.id);
    expect(back.location).toBe("https://merchant.example/thanks");
    await expectStartedOnce(m, session.id as string, confirmed.id);

    await standIn.endpointDelivery(m.endpoint, { hold: false });
    await standIn.flushEndpoint(m.endpoint);
    expect(await webhookLabelled(m, "payment_intent.succeeded", confirmed.id)).toBe("ignored");
    await expectStartedOnce(m, session.id as string, confirmed.id);
  });

  it("the return and the webhook at the same instant: one subscription, one paid invoice, the card saved once and its default", async () => {
    const m = await stripeMerchant();
    const session = await m.session();
    await standIn.endpointDelivery(m.endpoint, { hold: true, duplicate: true });
    const { confirmed } = await payAtStripe(m, session.id as string);
    expect(confirmed.body.status).toBe("succeeded");
    await standIn.endpointDelivery(m.endpoint, { hold: false });
    const [, back] = await Promise.all([standIn.flushEndpoint(m.endpoint), returnTo(session.id as string, confirmed.id)]);
    expect([200, 303, 307]).toContain(back.status);
    await completed(m, session.id as string);
    await webhookLabelled(m, "payment_intent.succeeded", confirmed.id);
    await expectStartedOnce(m, session.id as string, confirmed.id);
    await standIn.endpointDelivery(m.endpoint, { duplicate: false });
  });

  it("a declined card leaves the session open with nothing owed or running; another card then starts it once", async () => {
    const m = await stripeMerchant();
    const session = await m.session();
    const { started, confirmed } = await payAtStripe(m, session.id as string, "pm_card_chargeDeclined");
    expect(confirmed.status).toBe(402);
    const back = await returnTo(session.id as string, confirmed.id, "failed");
    expect(back.status).toBe(200);
    expect(back.text).toContain("The payment did not go through");
    await until(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${m.account} AND object_reference = ${confirmed.id} AND status = 'pending'`,
      (rows) => rows.length === 0,
    );
    expect((await m.get(`/checkout/sessions/${session.id}`)).status).toBe("open");
    expect(((await m.get(`/subscriptions`)).items as Json[]).length).toBe(0);
    expect(((await m.get(`/invoices`)).items as Json[]).length).toBe(0);
    expect(await m.events("payment_method.attached")).toEqual([]);

    // 3-D Secure that fails: still open, nothing started.
    const challenged = await pay(session.id as string, "ada@example.com");
    expect(challenged.clientSecret).toBe(started.clientSecret);
    const authentication = await confirmInBrowser(m, challenged.clientSecret!, "pm_card_threeDSecure2Required");
    expect(authentication.body.status).toBe("requires_action");
    await standIn.completeAction(authentication.id, false);
    await returnTo(session.id as string, authentication.id, "failed");
    expect((await m.get(`/checkout/sessions/${session.id}`)).status).toBe("open");
    expect(((await m.get(`/subscriptions`)).items as Json[]).length).toBe(0);

    // The same Stripe PaymentIntent, paid with a card that succeeds.
    const again = await pay(session.id as string, "ada@example.com");
    const paid = await confirmInBrowser(m, again.clientSecret!, "pm_card_visa");
    expect(paid.body.status).toBe("succeeded");
    await returnTo(session.id as string, paid.id);
    await completed(m, session.id as string);
    await expectStartedOnce(m, session.id as string, paid.id);
  });

  it("a trial collects the card with a SetupIntent: the trialing subscription starts with it as default, and its first invoice charges it off-session", async () => {
    const m = await stripeMerchant();
    const session = await m.session({ subscription_data: { trial_period_days: 14 } });
    const started = await pay(session.id as string, "ada@example.com");
    expect(started.ok, JSON.stringify(started)).toBe(true);
    expect(started.clientSecret).toMatch(/^seti_/);
    // A declined card: Stripe refuses it in the browser; nothing starts.
    const declined = await confirmInBrowser(m, started.clientSecret!, "pm_card_chargeDeclined");
    expect(declined.status).toBe(402);
    expect((await m.get(`/checkout/sessions/${session.id}`)).status).toBe("open");

    await standIn.endpointDelivery(m.endpoint, { hold: true });
    const retried = await pay(session.id as string, "ada@example.com");
    const confirmed = await confirmInBrowser(m, retried.clientSecret!, "pm_card_visa");
    expect(confirmed.body.status).toBe("succeeded");
    const atStripe = (await standIn.state()).setupIntents.find((setup) => setup.id === confirmed.id)!;
    expect(atStripe).toMatchObject({ usage: "off_session" });
    expect((await m.get(`/checkout/sessions/${session.id}`)).status).toBe("open");
    const [, back] = await Promise.all([
      (async () => {
        await standIn.endpointDelivery(m.endpoint, { hold: false });
        await standIn.flushEndpoint(m.endpoint);
      })(),
      returnTo(session.id as string, confirmed.id),
    ]);
    expect([200, 303, 307]).toContain(back.status);
    const done = await completed(m, session.id as string);
    await webhookLabelled(m, "setup_intent.succeeded", confirmed.id);
    expect(done).toMatchObject({ payment_intent: null, invoice: null, subscription: expect.stringMatching(/^sub_/) });
    const customer = done.customer as string;
    const methods = (await m.get(`/customers/${customer}/payment-methods`)).items as Json[];
    expect(methods).toEqual([expect.objectContaining({ processor: "stripe", card: expect.objectContaining({ last4: "4242" }) })]);
    const subscriptions = (await m.get(`/subscriptions?customer=${customer}`)).items as Json[];
    expect(subscriptions).toEqual([expect.objectContaining({ id: done.subscription, status: "trialing", default_payment_method: methods[0]!.id })]);
    for (const type of ["checkout.session.completed", "customer.subscription.created", "payment_method.attached"]) {
      expect((await m.events(type)).length, type).toBe(1);
    }
    expect(await m.events("invoice.paid")).toEqual([]);

    // The trial's end: the first invoice charges the saved card off-session.
    const subscription = subscriptions[0]!;
    await m.advance(Date.parse(subscription.trial_end as string) + DAY);
    const renewed = await until(() => m.get(`/subscriptions/${subscription.id}`), (row) => row.latest_invoice !== null);
    const invoice = await until(() => m.get(`/invoices/${renewed.latest_invoice}`), (row) => row.status === "paid");
    expect(invoice).toMatchObject({ paid_amount_atom: 2500 });
    const stripe = await standIn.state();
    const charged = stripe.paymentIntents.filter((intent) => intent.metadata.payment_intent === invoice.payment_intent);
    expect(charged).toEqual([expect.objectContaining({ status: "succeeded", amount: 2500, payment_method: methods[0]!.processor_payment_method })]);
    expect((await m.get(`/subscriptions/${subscription.id}`)).status).toBe("active");
  });

  it("a sandbox session of an account with no Stripe keeps the sandbox methods and POST .../complete", async () => {
    const s = await newSandbox();
    const price = await monthlyPrice(s.client, s.account, 1200);
    const session = await s.ok(s.client.post(`/${s.account}/checkout/sessions`, { mode: "subscription", line_items: [{ price }], success_url: "https://merchant.example/thanks" }));
    const page = await (await fetch(`${portalOrigin()}/checkout/${session.id}`)).text();
    expect(page).toContain("pm_sandbox_succeeds");
    expect(page).not.toContain('data-testid="payment-element"');
    const done = await api().post(`/checkout/sessions/${session.id}/complete`, { email: "sandbox@example.com", payment_method: "pm_sandbox_succeeds" });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: "complete", payment_status: "paid" });
    const subscriptions = (await s.ok(s.client.get(`/${s.account}/subscriptions`))).items as Json[];
    expect(subscriptions).toEqual([expect.objectContaining({ status: "active", default_payment_method: "pm_sandbox_succeeds" })]);
  });
});
