import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Client, Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { POOL_NAMES } from "@/db/client";
import { operationPath } from "@/lib/operation-paths";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * Connecting Stripe per account (docs/payments.md, "Connecting Stripe"), and charging through it,
 * against the app the api project starts, whose STRIPE_API_BASE is the stand-in
 * (tests/setup/api-server.ts). Each test has its own merchant; the stand-in is shared, so each
 * looks only at its own objects.
 */

const standIn = sharedStripeStandIn();
const LIVE_KEYS = { processor: "stripe", secret_key: "sk_live_connect_test_k3y9", publishable_key: "pk_live_connect_test_k3y9" };
const TEST_KEYS = { processor: "stripe", secret_key: "sk_test_connect_test_t3s7", publishable_key: "pk_test_connect_test_t3s7" };

let sql: postgres.Sql;

beforeAll(() => {
  sql = postgres(inject("databaseUrl"), { max: 1 });
});

afterAll(async () => {
  await sql.end();
});

const connect = (client: Client, accountId: string, body: Json) => client.request("PUT", `/${accountId}/payment-processor`, { body });

async function eventsOfType(client: Client, accountId: string, type: string): Promise<Json[]> {
  const response = await client.get(`/${accountId}/events?event_type=${type}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return response.body.items;
}

describe("connecting Stripe", () => {
  let merchant: Merchant;

  beforeAll(async () => {
    merchant = await newMerchant();
  });

  it("a live account refuses test keys and a test/live mix: 422 naming the field, nothing stored, no endpoint made", async () => {
    const endpointsBefore = (await standIn.state()).webhookEndpoints.length;
    const test = await connect(merchant.client, merchant.accountId, TEST_KEYS);
    expectProblem(test, 422, /live Stripe keys/);
    expect(test.body.errors).toEqual([{ field: "secret_key", message: expect.stringMatching(/live account takes live Stripe keys/) }]);
    expectProblem(await connect(merchant.client, merchant.accountId, { ...LIVE_KEYS, publishable_key: "pk_test_x" }), 422);
    // A processor the registry does not list, with keys otherwise complete: refused by name.
    expectProblem(await connect(merchant.client, merchant.accountId, { ...LIVE_KEYS, processor: "adyen" }), 422);
    expectProblem(await connect(merchant.client, merchant.accountId, { ...LIVE_KEYS, secret_key: "sk_live_revoked_key" }), 422, /Stripe refused the key/);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/payment-processor`), 404);
    expect((await standIn.state()).webhookEndpoints.length).toBe(endpointsBefore);
  });

  it("Stripe unreachable is a retryable 503, and nothing is stored", async () => {
    await standIn.fault({ path: /^\/v1\/account$/, status: 500, count: 3 });
    const answer = await connect(merchant.client, merchant.accountId, LIVE_KEYS);
    expectProblem(answer, 503);
    expect(answer.body.retryable).toBe(true);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/payment-processor`), 404);
  });

  it("live keys connect: the endpoint is made at Stripe for this account, the secrets are stored encrypted and never shown", async () => {
    const connected = await connect(merchant.client, merchant.accountId, LIVE_KEYS);
    expect(connected.status, connected.text).toBe(200);
    const state = await standIn.state();
    expect(connected.body).toEqual({
      object: "payment_processor",
      processor: "stripe",
      processor_account: state.accountId,
      secret_key_last4: "k3y9",
      publishable_key: LIVE_KEYS.publishable_key,
      webhook_endpoint_id: expect.stringMatching(/^we_/),
      webhook_url: expect.stringMatching(new RegExp(`${operationPath("receiveProcessorEvent", { processor: "stripe", account: merchant.accountId })}$`)),
      livemode: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    const endpoint = state.webhookEndpoints.find((candidate) => candidate.id === connected.body.webhook_endpoint_id)!;
    expect(endpoint.url).toBe(connected.body.webhook_url);
    expect(endpoint.enabled_events).toEqual(expect.arrayContaining(["payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.requires_action"]));

    // The unscoped path reads the token's account; the key itself appears nowhere.
    const read = await merchant.client.request("GET", "/payment-processor");
    expect(read.body).toEqual(connected.body);
    const [row] = await sql`SELECT secret_key_encrypted, webhook_secret_encrypted FROM payment_processors WHERE account_id = ${merchant.accountId}`;
    expect(row!.secret_key_encrypted).toMatch(/^v1\./);
    expect(row!.secret_key_encrypted).not.toContain("connect_test");
    expect(row!.webhook_secret_encrypted).not.toContain(endpoint.secret!);

    const [event] = await eventsOfType(merchant.client, merchant.accountId, "payment_processor.connected");
    expect(event).toMatchObject({ aggregate_id: merchant.accountId, data: connected.body, previous_data: null, actor_type: "api_key" });
    expect(JSON.stringify(event)).not.toMatch(/sk_live_|whsec_/);
  });

  it("disconnecting deletes the endpoint at Stripe and the stored keys", async () => {
    const before = (await merchant.client.get(`/${merchant.accountId}/payment-processor`)).body;
    const gone = await merchant.client.delete(`/${merchant.accountId}/payment-processor`);
    expect(gone.status, gone.text).toBe(200);
    expect((await standIn.state()).webhookEndpoints.map((endpoint) => endpoint.id)).not.toContain(before.webhook_endpoint_id);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/payment-processor`), 404);
    expectProblem(await merchant.client.delete(`/${merchant.accountId}/payment-processor`), 404);
    const [event] = await eventsOfType(merchant.client, merchant.accountId, "payment_processor.disconnected");
    expect(event).toMatchObject({ aggregate_id: merchant.accountId, data: before });
  });
});

describe("charging through Stripe", () => {
  let merchant: Merchant;

  beforeAll(async () => {
    merchant = await newMerchant();
    const connected = await connect(merchant.client, merchant.accountId, LIVE_KEYS);
    expect(connected.status, connected.text).toBe(200);
  });

  async function openInvoice(amount: number): Promise<Json> {
    const customer = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "payer@example.com", name: "Payer" });
    expect(customer.status, customer.text).toBe(201);
    const created = await merchant.client.post(`/${merchant.accountId}/invoices`, { customer: customer.body.id, currency: "usd", lines: [{ unit_amount_atom: amount, description: "Plan" }] });
    expect(created.status, created.text).toBe(201);
    const finalized = await merchant.client.post(`/${merchant.accountId}/invoices/${created.body.id}/finalize`);
    expect(finalized.status, finalized.text).toBe(200);
    return finalized.body;
  }

  const pay = (invoiceId: string, method: string) => merchant.client.post(`/${merchant.accountId}/invoices/${invoiceId}/pay`, { payment_method: method });

  async function stripeIntentOf(ourIntentId: string) {
    const intents = (await standIn.state()).paymentIntents.filter((intent) => intent.metadata.payment_intent === ourIntentId);
    expect(intents).toHaveLength(1);
    return intents[0]!;
  }

  it("POST /invoices/{id}/pay charges off-session with an idempotency key of our payment attempt: paid", async () => {
    const invoice = await openInvoice(4200);
    const paid = await pay(invoice.id, "pm_card_visa");
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 4200 });
    const intent = (await merchant.client.get(`/${merchant.accountId}/payment-intents/${paid.body.payment_intent}`)).body;
    expect(intent).toMatchObject({ status: "succeeded", amount_received_atom: 4200, payment_method: "pm_card_visa" });
    const atStripe = await stripeIntentOf(intent.id);
    expect(atStripe).toMatchObject({ status: "succeeded", amount: 4200, currency: "usd", customer: expect.stringMatching(/^cus_/) });
    const create = (await standIn.state()).requests.filter((request) => request.path === "/v1/payment_intents" && request.idempotencyKey === `${intent.id}-confirm-1`);
    expect(create).toHaveLength(1);
  });

  it("a decline: payment_intent.payment_failed and invoice.payment_failed, the invoice still open", async () => {
    const invoice = await openInvoice(1500);
    const answer = await pay(invoice.id, "pm_card_chargeDeclinedInsufficientFunds");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ status: "open", due_amount_atom: 1500 });
    const intent = (await merchant.client.get(`/${merchant.accountId}/payment-intents/${answer.body.payment_intent}`)).body;
    expect(intent).toMatchObject({ status: "requires_payment_method", last_payment_error: "Your card has insufficient funds.", payment_method: null });
    const failed = await eventsOfType(merchant.client, merchant.accountId, "invoice.payment_failed");
    expect(failed.map((event) => event.aggregate_id)).toContain(invoice.id);
  });

  it("authentication required off-session keeps the payment pending: requires_action and invoice.payment_action_required, not failed", async () => {
    const invoice = await openInvoice(2000);
    const answer = await pay(invoice.id, "pm_card_authenticationRequired");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ status: "open", due_amount_atom: 2000 });
    const intent = (await merchant.client.get(`/${merchant.accountId}/payment-intents/${answer.body.payment_intent}`)).body;
    expect(intent).toMatchObject({ status: "requires_action", last_payment_error: null });
    const required = await eventsOfType(merchant.client, merchant.accountId, "invoice.payment_action_required");
    expect(required.map((event) => event.aggregate_id)).toContain(invoice.id);
    const failed = await eventsOfType(merchant.client, merchant.accountId, "invoice.payment_failed");
    expect(failed.map((event) => event.aggregate_id)).not.toContain(invoice.id);
  });

  it("Stripe's answer lost after it charged (500): the SDK retries with the same key, exactly one charge, the invoice paid", async () => {
    const invoice = await openInvoice(3100);
    await standIn.fault({ path: /^\/v1\/payment_intents$/, status: 500, count: 1, afterProcessing: true });
    const paid = await pay(invoice.id, "pm_card_visa");
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", paid_amount_atom: 3100 });
    const state = await standIn.state();
    const atStripe = state.paymentIntents.filter((intent) => intent.metadata.payment_intent === paid.body.payment_intent);
    expect(atStripe).toHaveLength(1);
    expect(state.charges.filter((charge) => charge === atStripe[0]!.id)).toHaveLength(1);
    const sent = state.requests.filter((request) => request.idempotencyKey === `${paid.body.payment_intent}-confirm-1`);
    expect(sent.map((request) => [request.status, request.replayed])).toEqual([
      [500, false],
      [200, true],
    ]);
  });

  it("Stripe down on every retry: a retryable 503, the charge recorded in flight; the retry sends the same key and pays once", async () => {
    const invoice = await openInvoice(900);
    await standIn.fault({ path: /^\/v1\/payment_intents$/, status: 500, count: 3 });
    const refused = await pay(invoice.id, "pm_card_visa");
    expectProblem(refused, 503);
    expect(refused.body.retryable).toBe(true);
    const open = (await merchant.client.get(`/${merchant.accountId}/invoices/${invoice.id}`)).body;
    expect(open).toMatchObject({ status: "open", due_amount_atom: 900 });
    const intentId = open.payment_intent as string;
    expect((await merchant.client.get(`/${merchant.accountId}/payment-intents/${intentId}`)).body).toMatchObject({ status: "requires_confirmation", amount_received_atom: 0 });
    const [recorded] = await sql`SELECT charge_in_flight->>'idempotencyKey' AS key FROM payment_intents WHERE id = ${intentId}`;
    expect(recorded!.key).toBe(`${intentId}-confirm-1`);
    // Another method while that charge may have been made: refused, nothing sent.
    expectProblem(await pay(invoice.id, "pm_card_mastercard"), 409, /in flight/);
    // Nor may the invoice be voided under a charge that may yet succeed: refused, still open.
    const voiding = await merchant.client.post(`/${merchant.accountId}/invoices/${invoice.id}/void`, {});
    expectProblem(voiding, 409, /in flight at the payment processor/);
    expect(voiding.body).toMatchObject({ error_code: "charge_in_flight", retryable: true, invoice_id: invoice.id });
    expect(voiding.body.detail).toContain(intentId);
    expect((await merchant.client.get(`/${merchant.accountId}/invoices/${invoice.id}`)).body).toMatchObject({ status: "open" });
    const paid = await pay(invoice.id, "pm_card_visa");
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", payment_intent: intentId, paid_amount_atom: 900 });
    const state = await standIn.state();
    const sent = state.requests.filter((request) => request.idempotencyKey === `${intentId}-confirm-1`);
    expect(sent.map((request) => request.status)).toEqual([500, 500, 500, 200]);
    const atStripe = await stripeIntentOf(intentId);
    expect(state.charges.filter((charge) => charge === atStripe.id)).toHaveLength(1);
    const payments = await merchant.client.get(`/${merchant.accountId}/payments?payment_intent=${intentId}`);
    expect(payments.body.items).toHaveLength(1);
  });

  it("Stripe hanging on the charge holds no transaction of ours: the invoice and intent rows are free meanwhile; its answer then pays once", async () => {
    const invoice = await openInvoice(2600);
    await standIn.fault({ path: /^\/v1\/payment_intents$/, status: 200, count: 1, hang: true });
    const paying = pay(invoice.id, "pm_card_visa");
    let intentId: string;
    try {
      const state = await eventually(() => standIn.state(), (current) => current.requests.some((request) => request.hanging === true && request.path === "/v1/payment_intents"));
      const hung = state.requests.find((request) => request.hanging === true && request.path === "/v1/payment_intents")!;
      intentId = hung.idempotencyKey!.replace(/-confirm-1$/, "");
      const [{ since }] = (await sql`SELECT now() AS since`) as unknown as [{ since: Date }];
      // Writes on the very rows the payment concerns go through at once: NOWAIT fails if anyone holds them.
      await sql.begin(async (tx) => {
        await tx`SELECT id FROM invoices WHERE id = ${invoice.id} FOR UPDATE NOWAIT`;
        await tx`SELECT id FROM payment_intents WHERE id = ${intentId} FOR UPDATE NOWAIT`;
        await tx`UPDATE invoices SET updated = updated WHERE id = ${invoice.id}`;
      });
      // The service's own connections (not another test file's, which share this database): every
      // transaction open when the charge hung ends while it still hangs. The app is shared by the
      // files running beside this one, so one of theirs may be open at this instant and ends by
      // itself; one held across the call to Stripe would stay open until the release below.
      await eventually(
        async () => sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = ANY(${Object.values(POOL_NAMES)}) AND state LIKE 'idle in transaction%' AND xact_start <= ${since}`,
        (rows) => rows[0]!.n === 0,
      );
      // The merchant's own requests on the invoice are answered meanwhile.
      const read = await merchant.client.get(`/${merchant.accountId}/invoices/${invoice.id}`);
      expect(read.body).toMatchObject({ status: "open", payment_intent: intentId });
    } finally {
      await standIn.release();
    }
    const paid = await paying;
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", paid_amount_atom: 2600 });
    const atStripe = await stripeIntentOf(intentId);
    expect((await standIn.state()).charges.filter((charge) => charge === atStripe.id)).toHaveLength(1);
    const [row] = await sql`SELECT charge_in_flight, reconcile_at FROM payment_intents WHERE id = ${intentId}`;
    expect(row).toMatchObject({ charge_in_flight: null, reconcile_at: null });
  });

  it("a live account connected to Stripe still refuses sandbox methods", async () => {
    const invoice = await openInvoice(500);
    const refused = await pay(invoice.id, "pm_sandbox_succeeds");
    expectProblem(refused, 422, /sandbox payment methods work only on sandbox accounts/);
  });

  it("a sandbox account with Stripe test keys: sandbox methods stay simulated, pm_… methods go to Stripe", async () => {
    const sandbox = (await import("../helpers/api")).api(merchant.sandboxSecret.token);
    const account = merchant.sandboxAccountId;
    expect((await connect(sandbox, account, TEST_KEYS)).status).toBe(200);
    const simulated = await sandbox.post(`/${account}/payment-intents`, { amount_atom: 700, currency: "usd", payment_method: "pm_sandbox_succeeds", confirm: true });
    expect(simulated.body).toMatchObject({ status: "succeeded" });
    expect((await standIn.state()).paymentIntents.filter((intent) => intent.metadata.payment_intent === simulated.body.id)).toHaveLength(0);
    const held = await sandbox.post(`/${account}/payment-intents`, { amount_atom: 800, currency: "usd", payment_method: "pm_card_visa", capture_method: "manual", confirm: true });
    expect(held.body).toMatchObject({ status: "requires_capture", amount_capturable_atom: 800 });
    const captured = await sandbox.post(`/${account}/payment-intents/${held.body.id}/capture`, { amount_to_capture: 600 });
    expect(captured.body).toMatchObject({ status: "succeeded", amount_received_atom: 600 });
    expect(await stripeIntentOf(held.body.id)).toMatchObject({ status: "succeeded", amount_received: 600 });
  });
});

describe("Stripe webhooks", () => {
  let merchant: Merchant;

  beforeAll(async () => {
    merchant = await newMerchant();
    const connected = await connect(merchant.client, merchant.accountId, LIVE_KEYS);
    expect(connected.status, connected.text).toBe(200);
  });

  const intentOf = async (id: string) => (await merchant.client.get(`/${merchant.accountId}/payment-intents/${id}`)).body;

  it("3-D Secure completed at Stripe reaches the intent through the verified webhook, once, however often it is delivered", async () => {
    const created = await merchant.client.post(`/${merchant.accountId}/payment-intents`, { amount_atom: 1200, currency: "usd", payment_method: "pm_card_threeDSecure2Required", confirm: true });
    expect(created.body).toMatchObject({ status: "requires_action" });
    const atStripe = (await standIn.state()).paymentIntents.find((intent) => intent.metadata.payment_intent === created.body.id)!;
    await standIn.delivery({ duplicate: true });
    try {
      await standIn.completeAction(atStripe.id, true);
    } finally {
      await standIn.delivery({ duplicate: false });
    }
    const succeeded = await eventually(() => intentOf(created.body.id), (intent) => intent.status === "succeeded");
    expect(succeeded).toMatchObject({ amount_received_atom: 1200 });
    const deliveries = (await standIn.state()).deliveries.filter((delivery) => delivery.type === "payment_intent.succeeded");
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    const payments = await merchant.client.get(`/${merchant.accountId}/payments?payment_intent=${created.body.id}`);
    expect(payments.body.items).toHaveLength(1);
    const [row] = await sql`SELECT count(*)::int AS n FROM processor_events WHERE account_id = ${merchant.accountId} AND type = 'payment_intent.succeeded' AND object_reference = ${atStripe.id}`;
    expect(row!.n).toBe(1);
  });

  it("a late event after the final state changes nothing (the job re-reads the object at Stripe)", async () => {
    const created = await merchant.client.post(`/${merchant.accountId}/payment-intents`, { amount_atom: 1300, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    expect(created.body).toMatchObject({ status: "succeeded" });
    const atStripe = (await standIn.state()).paymentIntents.find((intent) => intent.metadata.payment_intent === created.body.id)!;
    const connection = (await merchant.client.get(`/${merchant.accountId}/payment-processor`)).body;
    // A `processing` event for it, signed by Stripe's endpoint secret: verified, stored, then ignored.
    const payload = JSON.stringify({ id: `evt_late_${atStripe.id}`, object: "event", type: "payment_intent.processing", data: { object: { ...atStripe, status: "processing" } } });
    const signed = await standInSign(payload, connection.webhook_endpoint_id);
    const received = await fetch(connection.webhook_url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signed }, body: payload });
    expect(received.status).toBe(200);
    const [row] = await eventually(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${merchant.accountId} AND event_id = ${`evt_late_${atStripe.id}`}`,
      (rows) => rows[0]?.status !== "pending",
    );
    expect(row!.status).toBe("ignored");
    expect(await intentOf(created.body.id)).toMatchObject({ status: "succeeded" });
  });

  it("a payload whose signature does not verify is a 400 and is not stored", async () => {
    const connection = (await merchant.client.get(`/${merchant.accountId}/payment-processor`)).body;
    const payload = JSON.stringify({ id: "evt_forged", object: "event", type: "payment_intent.succeeded", data: { object: { id: "pi_forged" } } });
    const forged = await fetch(connection.webhook_url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=deadbeef" }, body: payload });
    expect(forged.status).toBe(400);
    const [row] = await sql`SELECT count(*)::int AS n FROM processor_events WHERE event_id = 'evt_forged'`;
    expect(row!.n).toBe(0);
  });
});

describe("refunds through Stripe", () => {
  let merchant: Merchant;

  beforeAll(async () => {
    merchant = await newMerchant();
    const connected = await connect(merchant.client, merchant.accountId, LIVE_KEYS);
    expect(connected.status, connected.text).toBe(200);
  });

  const get = async (path: `/${string}`) => (await merchant.client.get(`/${merchant.accountId}${path}` as `/${string}/payments`)).body;

  /** A paid invoice of `amount` through Stripe, and its payment. */
  async function paidInvoice(amount: number): Promise<{ invoice: Json; payment: Json }> {
    const customer = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "refund@example.com" });
    const created = await merchant.client.post(`/${merchant.accountId}/invoices`, { customer: customer.body.id, currency: "usd", lines: [{ unit_amount_atom: amount, description: "Plan" }] });
    await merchant.client.post(`/${merchant.accountId}/invoices/${created.body.id}/finalize`);
    const paid = await merchant.client.post(`/${merchant.accountId}/invoices/${created.body.id}/pay`, { payment_method: "pm_card_visa" });
    expect(paid.body, paid.text).toMatchObject({ status: "paid" });
    const payments = await get(`/payments?payment_intent=${paid.body.payment_intent}`);
    return { invoice: paid.body, payment: payments.items[0] };
  }

  /** Stripe's refund made for ours: exactly one, created with our refund's id as its key and metadata. */
  async function atStripe(refundId: string) {
    const state = await standIn.state();
    const made = state.refunds.filter((refund) => refund.metadata?.refund === refundId);
    expect(made).toHaveLength(1);
    expect(state.requests.filter((request) => request.path === "/v1/refunds" && request.idempotencyKey === `${refundId}-refund`)).toHaveLength(1);
    return made[0]!;
  }

  const eventsOf = async (type: string, aggregate: string) =>
    (await eventsOfType(merchant.client, merchant.accountId, type)).filter((event) => event.aggregate_id === aggregate);

  it("a full refund is a Stripe refund, pending until Stripe settles it; its webhook (re-read) then succeeds it, once", async () => {
    const { invoice, payment } = await paidInvoice(4000);
    const created = await merchant.client.post(`/${merchant.accountId}/refunds`, { payment: payment.id });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", amount_atom: 4000 });
    const stripeRefund = await atStripe(created.body.id);
    expect(stripeRefund).toMatchObject({ status: "pending", amount: 4000 });
    // Stripe's refund.created arrives and is applied: still pending, nothing refunded yet.
    await eventually(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${merchant.accountId} AND type = 'refund.created' AND object_reference = ${stripeRefund.id}`,
      (rows) => rows[0] !== undefined && rows[0].status !== "pending",
    );
    expect(await get(`/refunds/${created.body.id}`)).toMatchObject({ status: "pending" });
    expect(await get(`/payments/${payment.id}`)).toMatchObject({ amount_refunded_atom: 0 });
    await standIn.settleRefund(stripeRefund.id, true);
    const settled = await eventually(() => get(`/refunds/${created.body.id}`), (refund) => refund.status !== "pending");
    expect(settled).toMatchObject({ status: "succeeded" });
    expect(await get(`/payments/${payment.id}`)).toMatchObject({ status: "refunded", amount_refunded_atom: 4000 });
    expect(await eventsOf("refund.updated", created.body.id)).toHaveLength(1);
    expect(await eventsOf("invoice.refunded", invoice.id)).toHaveLength(1);
  });

  it("partial refunds: a pending one counts against the payment; a refund Stripe fails is refund.failed, nothing refunded", async () => {
    const { payment } = await paidInvoice(5000);
    const first = await merchant.client.post(`/${merchant.accountId}/refunds`, { payment: payment.id, amount_atom: 3000 });
    expect(first.body).toMatchObject({ status: "pending", amount_atom: 3000 });
    // 3000 are being refunded: 2000 are left, however the first ends.
    expectProblem(await merchant.client.post(`/${merchant.accountId}/refunds`, { payment: payment.id, amount_atom: 2500 }), 422, /2000/);
    await standIn.settleRefund((await atStripe(first.body.id)).id, false);
    const failed = await eventually(() => get(`/refunds/${first.body.id}`), (refund) => refund.status !== "pending");
    expect(failed).toMatchObject({ status: "failed", failure_reason: expect.stringContaining("expired_or_canceled_card") });
    expect(await eventsOf("refund.failed", first.body.id)).toHaveLength(1);
    expect(await get(`/payments/${payment.id}`)).toMatchObject({ status: "succeeded", amount_refunded_atom: 0 });
    const second = await merchant.client.post(`/${merchant.accountId}/refunds`, { payment: payment.id, amount_atom: 2500 });
    expect(second.body).toMatchObject({ status: "pending" });
    await standIn.settleRefund((await atStripe(second.body.id)).id, true);
    await eventually(() => get(`/refunds/${second.body.id}`), (refund) => refund.status === "succeeded");
    expect(await get(`/payments/${payment.id}`)).toMatchObject({ status: "partially_refunded", amount_refunded_atom: 2500 });
  });

  it("a credit note's refund is a Stripe refund too: the note is issued with it pending, and Stripe settles it", async () => {
    const { invoice, payment } = await paidInvoice(1000);
    const note = await merchant.client.post(`/${merchant.accountId}/credit-notes`, { invoice: invoice.id, amount_atom: 1000, reason: "duplicate", refund_amount_atom: 1000 });
    expect(note.status, note.text).toBe(201);
    expect(note.body.refunds).toHaveLength(1);
    const refundId = note.body.refunds[0] as string;
    expect(await get(`/refunds/${refundId}`)).toMatchObject({ status: "pending", amount_atom: 1000 });
    await standIn.settleRefund((await atStripe(refundId)).id, true);
    await eventually(() => get(`/refunds/${refundId}`), (refund) => refund.status === "succeeded");
    expect(await get(`/payments/${payment.id}`)).toMatchObject({ status: "refunded", amount_refunded_atom: 1000 });
  });
});

describe("reconciliation: a charge whose answer or webhook was lost", () => {
  let sandbox: Client;
  let account: string;

  beforeAll(async () => {
    const merchant = await newMerchant();
    sandbox = (await import("../helpers/api")).api(merchant.sandboxSecret.token);
    account = merchant.sandboxAccountId;
    const connected = await connect(sandbox, account, TEST_KEYS);
    expect(connected.status, connected.text).toBe(200);
  });

  /** Moves the sandbox account's test clock on: what falls due on the way runs, the reconciliation job included. */
  async function advance(ms: number): Promise<void> {
    const clock = await sandbox.get(`/${account}/test-clock`);
    const moved = await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(Date.parse(clock.body.now) + ms).toISOString() });
    expect(moved.status, moved.text).toBe(200);
  }

  const intentOf = async (id: string) => (await sandbox.get(`/${account}/payment-intents/${id}`)).body;
  const MINUTE = 60_000;

  async function chargeWhileStripeFails(amount: number, afterProcessing: boolean): Promise<string> {
    await standIn.fault({ path: /^\/v1\/payment_intents$/, status: 500, count: 3, afterProcessing });
    const created = await sandbox.post(`/${account}/payment-intents`, { amount_atom: amount, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    // The intent is committed with its charge in flight: answered as it is (a 503 would invite a second intent).
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: "requires_confirmation", amount_received_atom: 0 });
    return created.body.id;
  }

  it("Stripe charged, but its answer and its webhook were lost: 15 minutes on, the job applies the charge, exactly once", async () => {
    await standIn.delivery({ drop: true });
    let intentId: string;
    try {
      intentId = await chargeWhileStripeFails(1700, true);
      const atStripe = (await standIn.state()).paymentIntents.find((intent) => intent.metadata.payment_intent === intentId)!;
      expect(atStripe).toMatchObject({ status: "succeeded", amount_received: 1700 });
      await advance(14 * MINUTE);
      expect(await intentOf(intentId)).toMatchObject({ status: "requires_confirmation" });
      await advance(2 * MINUTE);
    } finally {
      await standIn.delivery({ drop: false });
    }
    expect(await intentOf(intentId)).toMatchObject({ status: "succeeded", amount_received_atom: 1700 });
    const state = await standIn.state();
    const sent = state.requests.filter((request) => request.idempotencyKey === `${intentId}-confirm-1`);
    // The first carried out and its answer lost, the SDK's two retries replayed (and lost), the job's replayed.
    expect(sent.map((request) => [request.status, request.replayed])).toEqual([[500, false], [500, true], [500, true], [200, true]]);
    const atStripe = state.paymentIntents.filter((intent) => intent.metadata.payment_intent === intentId);
    expect(atStripe).toHaveLength(1);
    expect(state.charges.filter((charge) => charge === atStripe[0]!.id)).toHaveLength(1);
    expect((await sandbox.get(`/${account}/payments?payment_intent=${intentId}`)).body.items).toHaveLength(1);
    const [row] = await sql`SELECT charge_in_flight, reconcile_at FROM payment_intents WHERE id = ${intentId}`;
    expect(row).toMatchObject({ charge_in_flight: null, reconcile_at: null });
  });

  it("the charge never reached Stripe (an outage, or a crash after our commit): the job sends it, once", async () => {
    const intentId = await chargeWhileStripeFails(1800, false);
    expect((await standIn.state()).paymentIntents.filter((intent) => intent.metadata.payment_intent === intentId)).toHaveLength(0);
    await advance(16 * MINUTE);
    expect(await intentOf(intentId)).toMatchObject({ status: "succeeded", amount_received_atom: 1800 });
    const state = await standIn.state();
    const atStripe = state.paymentIntents.filter((intent) => intent.metadata.payment_intent === intentId);
    expect(atStripe).toHaveLength(1);
    expect(state.charges.filter((charge) => charge === atStripe[0]!.id)).toHaveLength(1);
    // Its webhook, delivered as well, finds the charge applied: nothing more.
    await eventually(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${account} AND object_reference = ${atStripe[0]!.id}`,
      (rows) => rows.length > 0 && rows.every((row) => row.status !== "pending"),
    );
    expect((await sandbox.get(`/${account}/payments?payment_intent=${intentId}`)).body.items).toHaveLength(1);
  });

  /** A succeeded charge through Stripe on the sandbox account, and its payment. */
  async function paidPayment(amount: number): Promise<Json> {
    const paid = await sandbox.post(`/${account}/payment-intents`, { amount_atom: amount, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    expect(paid.body, paid.text).toMatchObject({ status: "succeeded" });
    return (await sandbox.get(`/${account}/payments?payment_intent=${paid.body.id}`)).body.items[0];
  }
  const refundsAtStripe = async (refundId: string) => (await standIn.state()).refunds.filter((refund) => refund.metadata?.refund === refundId);

  it("a refund that never reached Stripe (an outage): 15 minutes on, the job sends it with its key, once; Stripe then settles it", async () => {
    const payment = await paidPayment(2100);
    await standIn.fault({ path: /^\/v1\/refunds$/, status: 500, count: 3 });
    const created = await sandbox.post(`/${account}/refunds`, { payment: payment.id });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", amount_atom: 2100 });
    const refundId = created.body.id as string;
    expect(await refundsAtStripe(refundId)).toHaveLength(0);
    await advance(14 * MINUTE);
    expect(await refundsAtStripe(refundId)).toHaveLength(0);
    await advance(2 * MINUTE);
    const made = await refundsAtStripe(refundId);
    expect(made).toHaveLength(1);
    const sent = (await standIn.state()).requests.filter((request) => request.idempotencyKey === `${refundId}-refund`);
    // The SDK's three tries at creation, then the job's.
    expect(sent.map((request) => request.status)).toEqual([500, 500, 500, 200]);
    await standIn.settleRefund(made[0]!.id, true);
    await eventually(async () => (await sandbox.get(`/${account}/refunds/${refundId}`)).body, (refund) => refund.status === "succeeded");
    expect((await sandbox.get(`/${account}/payments/${payment.id}`)).body).toMatchObject({ status: "refunded", amount_refunded_atom: 2100 });
    const [row] = await sql`SELECT reconcile_at FROM refunds WHERE id = ${refundId}`;
    expect(row).toMatchObject({ reconcile_at: null });
  });

  it("a refund Stripe settled whose webhook was lost: 15 minutes on, the job re-reads it and applies it, once", async () => {
    const payment = await paidPayment(2200);
    const created = await sandbox.post(`/${account}/refunds`, { payment: payment.id, amount_atom: 700 });
    expect(created.body, created.text).toMatchObject({ status: "pending" });
    const refundId = created.body.id as string;
    const [made] = await refundsAtStripe(refundId);
    // Stripe's refund.created is delivered and applied (still pending) before its later events are lost.
    await eventually(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${account} AND type = 'refund.created' AND object_reference = ${made!.id}`,
      (rows) => rows.length > 0 && rows.every((row) => row.status !== "pending"),
    );
    await standIn.delivery({ drop: true });
    try {
      await standIn.settleRefund(made!.id, true);
      await advance(14 * MINUTE);
      expect((await sandbox.get(`/${account}/refunds/${refundId}`)).body).toMatchObject({ status: "pending" });
      await advance(2 * MINUTE);
    } finally {
      await standIn.delivery({ drop: false });
    }
    expect((await sandbox.get(`/${account}/refunds/${refundId}`)).body).toMatchObject({ status: "succeeded" });
    expect((await sandbox.get(`/${account}/payments/${payment.id}`)).body).toMatchObject({ status: "partially_refunded", amount_refunded_atom: 700 });
    const updates = (await eventsOfType(sandbox, account, "refund.updated")).filter((event) => event.aggregate_id === refundId);
    expect(updates).toHaveLength(1);
    expect(await refundsAtStripe(refundId)).toHaveLength(1);
  });
});

/** Signs as the stand-in's endpoint would: its secret is in the stand-in's state (Stripe shows it once, at creation). */
async function standInSign(payload: string, endpointId: string): Promise<string> {
  const endpoint = (await standIn.state()).webhookEndpoints.find((candidate) => candidate.id === endpointId)!;
  const { default: Stripe } = await import("stripe");
  return new Stripe("sk_test_signer").webhooks.generateTestHeaderString({ payload, secret: endpoint.secret! });
}
