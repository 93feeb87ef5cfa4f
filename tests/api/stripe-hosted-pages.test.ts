import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";
import { callActionWith } from "../helpers/server-action";
import { connectStripe, stripeStandInClient } from "../helpers/stripe-stand-in";

/*
 * Issue #36 point 4: the hosted checkout and invoice pages of an account connected to Stripe are
 * paid through Stripe.js; the session or invoice completes only from Stripe's word (its verified
 * webhook, or the server's retrieve on the return URL), exactly once when both arrive together
 * (the browser-return vs webhook race that lost orders in Medusa #13301). The browser's part is
 * played here as Stripe.js plays it: the page's server action answers the client secret, and the
 * PaymentIntent is confirmed at the stand-in with the publishable key and that secret.
 */

const base = inject("apiBaseUrl");
const standIn = stripeStandInClient(inject("stripeStandInUrl"));
const KEYS = { processor: "stripe", secret_key: "sk_live_hosted_pages_h0st", publishable_key: "pk_live_hosted_pages_h0st" };

let sql: postgres.Sql;
let merchant: Merchant;
let endpointId: string;

beforeAll(async () => {
  sql = postgres(inject("databaseUrl"), { max: 1 });
  merchant = await newMerchant();
  endpointId = await connectStripe(merchant.client, merchant.accountId, KEYS);
});

afterAll(async () => {
  await sql.end();
});

const path = (rest: string) => `/${merchant.accountId}${rest}` as `/${string}/checkout/sessions`;

async function paymentSession(amount: number): Promise<Json> {
  const product = (await merchant.client.post(path("/products"), { name: `Race ${amount}` })).body;
  const price = (await merchant.client.post(path("/prices"), { product: product.id, currency: "usd", unit_amount_atom: amount, type: "one_time" })).body;
  const created = await merchant.client.post(path("/checkout/sessions"), { mode: "payment", line_items: [{ price: price.id }], success_url: "https://shop.example/thanks" });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** Stripe.js's confirmation from the browser: the publishable key and the client secret only. */
async function confirmInBrowser(clientSecret: string, paymentMethod: string): Promise<{ status: number; body: Json }> {
  const intentId = clientSecret.split("_secret_")[0]!;
  const response = await fetch(`${standIn.url}/v1/payment_intents/${intentId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: KEYS.publishable_key, client_secret: clientSecret, payment_method: paymentMethod, return_url: "https://ignored.example" }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

/** The return URL as Stripe.js sends the browser back to it. */
async function returnTo(page: string, clientSecret: string, redirectStatus = "succeeded"): Promise<Response> {
  const intentId = clientSecret.split("_secret_")[0]!;
  const query = new URLSearchParams({ payment_intent: intentId, payment_intent_client_secret: clientSecret, redirect_status: redirectStatus });
  const response = await fetch(`${base}${page}?${query}`, { redirect: "manual" });
  await response.arrayBuffer();
  return response;
}

async function startCheckout(sessionId: string, email: string): Promise<string> {
  const { result } = await callActionWith(base, `/checkout/${sessionId}`, "startCheckoutPaymentAction", [sessionId, email]);
  expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
  return (result as unknown as { clientSecret: string }).clientSecret;
}

/** Every event this merchant's endpoint was sent has been stored and applied (or found already applied). */
async function webhooksApplied(): Promise<void> {
  await eventually(
    async () => sql`SELECT count(*)::int AS n FROM processor_events WHERE account_id = ${merchant.accountId} AND status = 'pending'`,
    (rows) => rows[0]!.n === 0,
  );
}

async function eventsOf(type: string, aggregateId: string): Promise<number> {
  const rows = await sql`SELECT count(*)::int AS n FROM events WHERE account_id = ${merchant.accountId} AND type = ${type} AND aggregate_id = ${aggregateId}`;
  return rows[0]!.n as number;
}

describe("hosted checkout paid through Stripe.js", () => {
  it("the page answers a client secret of an unconfirmed Stripe PaymentIntent for the total; the browser's word alone completes nothing", async () => {
    const session = await paymentSession(2100);
    const clientSecret = await startCheckout(session.id as string, "claims@example.com");
    const atStripe = (await standIn.state()).paymentIntents.find((intent) => intent.client_secret === clientSecret)!;
    expect(atStripe).toMatchObject({ status: "requires_payment_method", amount: 2100, currency: "usd" });
    const ours = (await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body;
    expect(ours).toMatchObject({ status: "open", payment_intent: atStripe.metadata.payment_intent });

    // A browser that comes back claiming success before paying: re-read at Stripe, nothing completes.
    await returnTo(`/checkout/${session.id}`, clientSecret);
    expect((await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body.status).toBe("open");
    // Pay again (a reload): the same PaymentIntent, no second one.
    expect(await startCheckout(session.id as string, "claims@example.com")).toBe(clientSecret);
  });

  it("return and webhook arriving together complete the session once: one payment, one checkout.session.completed", { timeout: 120_000 }, async () => {
    for (let round = 0; round < 5; round++) {
      const session = await paymentSession(2200 + round);
      const clientSecret = await startCheckout(session.id as string, `race${round}@example.com`);
      await standIn.endpointDelivery(endpointId, { hold: true });
      try {
        const confirmed = await confirmInBrowser(clientSecret, "pm_card_visa");
        expect(confirmed.body.status).toBe("succeeded");
        // The browser's return and Stripe's held webhook, at once.
        const [returned] = await Promise.all([returnTo(`/checkout/${session.id}`, clientSecret), standIn.flushEndpoint(endpointId)]);
        expect([303, 307, 308]).toContain(returned.status);
        expect(returned.headers.get("location")).toBe("https://shop.example/thanks");
      } finally {
        await standIn.endpointDelivery(endpointId, { hold: false });
      }
      await webhooksApplied();
      const completed = (await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body;
      expect(completed).toMatchObject({ status: "complete", payment_status: "paid", customer_email: `race${round}@example.com` });
      expect(await eventsOf("checkout.session.completed", session.id as string)).toBe(1);
      const intent = (await merchant.client.get(path(`/payment-intents/${completed.payment_intent}`))).body;
      expect(intent).toMatchObject({ status: "succeeded", amount_received_atom: 2200 + round, payment_method: "pm_card_visa" });
      const payments = await sql`SELECT count(*)::int AS n FROM payments WHERE payment_intent_id = ${completed.payment_intent as string} AND status = 'succeeded'`;
      expect(payments[0]!.n).toBe(1);
      const atStripe = clientSecret.split("_secret_")[0]!;
      expect((await standIn.state()).charges.filter((charge) => charge === atStripe)).toHaveLength(1);
    }
  });

  it("the webhook alone completes the session when the browser never comes back", async () => {
    const session = await paymentSession(2300);
    const clientSecret = await startCheckout(session.id as string, "gone@example.com");
    expect((await confirmInBrowser(clientSecret, "pm_card_mastercard")).body.status).toBe("succeeded");
    await eventually(
      async () => (await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body,
      (body) => body.status === "complete",
    );
    await webhooksApplied();
    expect(await eventsOf("checkout.session.completed", session.id as string)).toBe(1);
  });

  it("a declined card leaves the session open and payable with the same PaymentIntent", async () => {
    const session = await paymentSession(2400);
    const clientSecret = await startCheckout(session.id as string, "declined@example.com");
    const declined = await confirmInBrowser(clientSecret, "pm_card_chargeDeclined");
    expect(declined.status).toBe(402);
    await returnTo(`/checkout/${session.id}`, clientSecret, "failed");
    await webhooksApplied();
    expect((await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body.status).toBe("open");
    expect(await startCheckout(session.id as string, "declined@example.com")).toBe(clientSecret);
    expect((await confirmInBrowser(clientSecret, "pm_card_visa")).body.status).toBe("succeeded");
    await returnTo(`/checkout/${session.id}`, clientSecret);
    expect((await merchant.client.get(path(`/checkout/sessions/${session.id}`))).body.status).toBe("complete");
  });
});

describe("hosted invoice page paid through Stripe.js", () => {
  it("return and webhook together pay the invoice once: one payment, one invoice.paid", async () => {
    const customer = (await merchant.client.post(path("/customers"), { email: "invoice-race@example.com" })).body;
    const draft = (await merchant.client.post(path("/invoices"), { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 3100, description: "Race" }] })).body;
    const invoice = (await merchant.client.post(path(`/invoices/${draft.id}/finalize`))).body;
    const page = new URL(invoice.hosted_invoice_url as string).pathname;
    const token = page.split("/").pop()!;
    const { result } = await callActionWith(base, page, "startHostedInvoicePaymentAction", [token]);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    const clientSecret = (result as unknown as { clientSecret: string }).clientSecret;

    await standIn.endpointDelivery(endpointId, { hold: true });
    try {
      expect((await confirmInBrowser(clientSecret, "pm_card_visa")).body.status).toBe("succeeded");
      const [returned] = await Promise.all([returnTo(page, clientSecret), standIn.flushEndpoint(endpointId)]);
      expect(returned.status).toBe(200);
    } finally {
      await standIn.endpointDelivery(endpointId, { hold: false });
    }
    await webhooksApplied();
    const paid = (await merchant.client.get(path(`/invoices/${invoice.id}`))).body;
    expect(paid).toMatchObject({ status: "paid", paid_amount_atom: 3100, due_amount_atom: 0 });
    expect(await eventsOf("invoice.paid", invoice.id as string)).toBe(1);
    const payments = await sql`SELECT count(*)::int AS n FROM payments WHERE payment_intent_id = ${paid.payment_intent as string} AND status = 'succeeded'`;
    expect(payments[0]!.n).toBe(1);
  });
});
