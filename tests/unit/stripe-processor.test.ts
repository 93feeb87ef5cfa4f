import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChargeRequest, PaymentProcessor, ProcessorConnection } from "@/lib/payments/processors/types";
import { startStripeStandIn } from "../helpers/stripe-stand-in";

/*
 * The Stripe processor (lib/payments/processors/stripe) through the real SDK over a real socket,
 * against the stateful stand-in (tests/helpers/stripe-stand-in.ts). The app's own flows through
 * the API are in tests/api/stripe-*.test.ts.
 */

// config() reads STRIPE_API_BASE once per module graph, and a unit worker's graph is shared by its
// files (vitest.config.ts, isolate: false): so this file stubs it, then loads lib/ into a graph of
// its own; at its end it unstubs and resets the graph for the files after it.
const standIn = await startStripeStandIn();
vi.stubEnv("STRIPE_API_BASE", standIn.url);
vi.resetModules();
const { stripeProcessor } = await import("@/lib/payments/processors/stripe");
const { ProcessorRefusedError, ProcessorUnavailableError } = await import("@/lib/payments/processors/types");

let connection: ProcessorConnection;
let stripe: PaymentProcessor;
let sequence = 0;

const keys = { secret_key: "sk_test_standin_merchant", publishable_key: "pk_test_standin_merchant" };

function charge(overrides: Partial<ChargeRequest>): ChargeRequest {
  sequence += 1;
  return {
    idempotencyKey: `pi_unit_${sequence}-confirm-1`,
    intentId: `pi_unit_${sequence}`,
    amountAtom: 2500,
    currency: "usd",
    paymentMethod: "pm_card_visa",
    processorCustomer: null,
    captureMethod: "automatic",
    offSession: false,
    actionPending: false,
    reference: null,
    ...overrides,
  };
}

beforeAll(async () => {
  connection = await stripeProcessor.connect({ credentials: keys, livemode: false, webhookUrl: "http://127.0.0.1:9/api/processors/stripe/acct_test" });
  stripe = stripeProcessor.open(connection);
});

afterAll(async () => {
  await standIn.close();
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("connecting", () => {
  it("checks the key at Stripe and creates the webhook endpoint for the payment events", () => {
    expect(connection.processorAccount).toBe(standIn.accountId);
    const endpoint = standIn.webhookEndpoints.get(connection.webhookEndpointId)!;
    expect(endpoint.url).toBe("http://127.0.0.1:9/api/processors/stripe/acct_test");
    expect(endpoint.enabled_events).toEqual(expect.arrayContaining(["payment_intent.succeeded", "payment_intent.payment_failed", "charge.dispute.created"]));
    expect(connection.webhookSecret).toBe(endpoint.secret);
  });

  it("refuses test keys for a live account, live keys for a sandbox one, and a test/live mix", async () => {
    const connect = (credentials: typeof keys, livemode: boolean) => stripeProcessor.connect({ credentials, livemode, webhookUrl: "http://127.0.0.1:9/x" });
    await expect(connect(keys, true)).rejects.toThrow(/live account takes live Stripe keys/);
    await expect(connect({ secret_key: "sk_live_x", publishable_key: "pk_live_x" }, false)).rejects.toThrow(/sandbox account takes Stripe test keys/);
    await expect(connect({ secret_key: "sk_test_x", publishable_key: "pk_live_x" }, false)).rejects.toThrow(ProcessorRefusedError);
    const refused = connect({ secret_key: "sk_test_revoked", publishable_key: "pk_test_x" }, false);
    await expect(refused).rejects.toMatchObject({ field: "secret_key", message: expect.stringMatching(/Stripe refused the key/) });
  });

  it("disconnecting deletes the endpoint; an endpoint already gone is not an error", async () => {
    const other = await stripeProcessor.connect({ credentials: keys, livemode: false, webhookUrl: "http://127.0.0.1:9/y" });
    await stripeProcessor.disconnect(other);
    expect(standIn.webhookEndpoints.has(other.webhookEndpointId)).toBe(false);
    await expect(stripeProcessor.disconnect(other)).resolves.toBeUndefined();
  });
});

describe("on-session payments in the browser (Stripe.js)", () => {
  /** Stripe.js's confirmation: the publishable key and the client secret only. */
  async function confirmInBrowser(clientSecret: string, paymentMethod: string, key = keys.publishable_key) {
    const reference = clientSecret.split("_secret_")[0]!;
    const response = await fetch(`${standIn.url}/v1/payment_intents/${reference}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key, client_secret: clientSecret, payment_method: paymentMethod }).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it("prepares an unconfirmed PaymentIntent with our id as metadata, once per key, and answers its client secret", async () => {
    expect(stripe.clientKey).toBe(keys.publishable_key);
    const input = { intentId: "pi_unit_browser", idempotencyKey: "pi_unit_browser-on-session", amountAtom: 1800, currency: "usd", processorCustomer: null, reference: null };
    const prepared = await stripe.prepareOnSession!(input);
    expect(prepared.clientSecret.startsWith(`${prepared.reference}_secret_`)).toBe(true);
    expect(standIn.paymentIntents.get(prepared.reference)).toMatchObject({ status: "requires_payment_method", amount: 1800, metadata: { payment_intent: "pi_unit_browser" } });
    // Again with the key, or with the reference known: the same PaymentIntent.
    expect(await stripe.prepareOnSession!(input)).toEqual(prepared);
    expect(await stripe.prepareOnSession!({ ...input, idempotencyKey: "other", reference: prepared.reference })).toEqual(prepared);

    expect((await confirmInBrowser(prepared.clientSecret, "pm_card_visa")).status).toBe(200);
    expect(await stripe.retrieve(prepared.reference)).toEqual({ status: "succeeded", reference: prepared.reference, receivedAtom: 1800, method: "pm_card_visa" });
  });

  it("the stand-in lets a publishable key confirm and read only the PaymentIntent whose client secret it has", async () => {
    const prepared = await stripe.prepareOnSession!({ intentId: "pi_unit_secret", idempotencyKey: "pi_unit_secret-on-session", amountAtom: 900, currency: "usd", processorCustomer: null, reference: null });
    const wrongSecret = `${prepared.reference}_secret_wrong`;
    expect((await confirmInBrowser(wrongSecret, "pm_card_visa")).status).toBe(404);
    const listing = await fetch(`${standIn.url}/v1/customers`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `key=${keys.publishable_key}` });
    expect(listing.status).toBe(401);
    expect(standIn.paymentIntents.get(prepared.reference)!.status).toBe("requires_payment_method");
  });
});

describe("saving a card in the browser (SetupIntent)", () => {
  /** What Stripe.js's confirmSetup does: the publishable key, the client secret, the card entered. */
  async function confirmInBrowser(clientSecret: string, card: string): Promise<number> {
    const setupId = clientSecret.split("_secret_")[0]!;
    const response = await fetch(`${standIn.url}/v1/setup_intents/${setupId}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: keys.publishable_key, client_secret: clientSecret, payment_method: card }).toString(),
    });
    await response.arrayBuffer();
    return response.status;
  }

  it("prepares an off-session SetupIntent for the customer (our id as metadata); it reads pending, then succeeded with the card saved for that customer", async () => {
    const { reference: customer } = await stripe.createCustomer({ customerId: "cus_unit_setup", email: null, name: null });
    const handle = await stripe.prepareSetup!({ customerId: "cus_unit_setup", processorCustomer: customer });
    expect(handle.reference).toMatch(/^seti_/);
    expect(handle.clientSecret.startsWith(`${handle.reference}_secret_`)).toBe(true);
    expect(standIn.setupIntents.get(handle.reference)).toMatchObject({ usage: "off_session", customer, metadata: { customer: "cus_unit_setup" } });
    expect(await stripe.retrieveSetup!(handle.reference)).toEqual({ reference: handle.reference, status: "pending", processorCustomer: customer, method: null });

    expect(await confirmInBrowser(handle.clientSecret, "pm_card_mastercard")).toBe(200);
    const state = await stripe.retrieveSetup!(handle.reference);
    expect(state).toMatchObject({ status: "succeeded", processorCustomer: customer, method: { brand: "mastercard", last4: "4444", expMonth: 12 } });
    // A new method of Stripe's, saved for the customer (not the test token itself).
    expect(state.method!.reference).toMatch(/^pm_[0-9a-f]{24}$/);
  });

  it("a declined card leaves it pending; a 3-D Secure card waits for the challenge; the stand-in lets a publishable key touch only the SetupIntent whose secret it has", async () => {
    const { reference: customer } = await stripe.createCustomer({ customerId: "cus_unit_setup_2", email: null, name: null });
    const declined = await stripe.prepareSetup!({ customerId: "cus_unit_setup_2", processorCustomer: customer });
    expect(await confirmInBrowser(declined.clientSecret, "pm_card_chargeDeclined")).toBe(402);
    expect((await stripe.retrieveSetup!(declined.reference)).status).toBe("pending");
    expect(await confirmInBrowser(`${declined.reference}_secret_wrong`, "pm_card_visa")).toBe(404);

    const secure = await stripe.prepareSetup!({ customerId: "cus_unit_setup_2", processorCustomer: customer });
    expect(await confirmInBrowser(secure.clientSecret, "pm_card_threeDSecure2Required")).toBe(200);
    expect((await stripe.retrieveSetup!(secure.reference)).status).toBe("pending");
    const response = await fetch(`${standIn.url}/_stand-in/setup_intents/${secure.reference}/complete_action`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ succeed: true }),
    });
    expect(response.status).toBe(200);
    expect(await stripe.retrieveSetup!(secure.reference)).toMatchObject({ status: "succeeded", method: { last4: "3220" } });
  });
});

describe("saving the card of an on-session payment (setup_future_usage)", () => {
  it("a PaymentIntent prepared with setupFutureUsage saves the card for the customer when it succeeds; the state names the saved method", async () => {
    const { reference: customer } = await stripe.createCustomer({ customerId: "cus_unit_future", email: null, name: null });
    const prepared = await stripe.prepareOnSession!({
      intentId: "pi_unit_future",
      idempotencyKey: "pi_unit_future-on-session",
      amountAtom: 1200,
      currency: "usd",
      processorCustomer: customer,
      reference: null,
      setupFutureUsage: "off_session",
    });
    expect(standIn.paymentIntents.get(prepared.reference)).toMatchObject({ setup_future_usage: "off_session", customer });
    const response = await fetch(`${standIn.url}/v1/payment_intents/${prepared.reference}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: keys.publishable_key, client_secret: prepared.clientSecret, payment_method: "pm_card_visa" }).toString(),
    });
    expect(response.status).toBe(200);
    const state = await stripe.retrieve(prepared.reference);
    expect(state.status).toBe("succeeded");
    expect(state.method).toMatch(/^pm_[0-9a-f]{24}$/);
    // Saved for the customer: charged off-session later as it is.
    const later = await stripe.charge(charge({ paymentMethod: state.method!, processorCustomer: customer, offSession: true }));
    expect(later.status).toBe("succeeded");
  });
});

describe("charging", () => {
  it("a good card succeeds with the whole amount; its PaymentIntent carries our intent's id", async () => {
    const request = charge({});
    const state = await stripe.charge(request);
    expect(state).toMatchObject({ status: "succeeded", receivedAtom: 2500 });
    expect(standIn.paymentIntents.get(state.reference!)!.metadata).toEqual({ payment_intent: request.intentId });
  });

  it("declines carry Stripe's message and decline code", async () => {
    expect(await stripe.charge(charge({ paymentMethod: "pm_card_chargeDeclined" }))).toMatchObject({ status: "declined", message: "Your card was declined.", code: "generic_decline" });
    expect(await stripe.charge(charge({ paymentMethod: "pm_card_chargeDeclinedInsufficientFunds" }))).toMatchObject({ status: "declined", code: "insufficient_funds" });
  });

  it("an off-session charge that needs authentication is pending the customer's action, not declined", async () => {
    const customer = await stripe.createCustomer({ customerId: "cus_ours_1", email: "a@example.com", name: null });
    const saved = await stripe.savePaymentMethod({ processorCustomer: customer.reference, paymentMethod: "pm_card_authenticationRequired" });
    expect(saved).toMatchObject({ brand: "visa", last4: "3184" });
    expect(saved.reference).toMatch(/^pm_/);
    const state = await stripe.charge(charge({ paymentMethod: saved.reference, processorCustomer: customer.reference, offSession: true }));
    expect(state.status).toBe("requires_action");
  });

  it("on-session 3-D Secure: requires_action, then the completed challenge reads as succeeded", async () => {
    const request = charge({ paymentMethod: "pm_card_threeDSecure2Required" });
    const first = await stripe.charge(request);
    expect(first.status).toBe("requires_action");
    await standIn.completeAction(first.reference!, true);
    const again = await stripe.charge({ ...request, idempotencyKey: `${request.intentId}-confirm-2`, actionPending: true, reference: first.reference });
    expect(again).toMatchObject({ status: "succeeded", reference: first.reference, receivedAtom: 2500 });
    expect(await stripe.retrieve(first.reference!)).toMatchObject({ status: "succeeded" });
  });

  it("manual capture holds the amount, then captures part of it", async () => {
    const held = await stripe.charge(charge({ captureMethod: "manual" }));
    expect(held).toMatchObject({ status: "requires_capture", capturableAtom: 2500 });
    expect(await stripe.capture({ reference: held.reference, amountAtom: 2000, idempotencyKey: "cap-1" })).toMatchObject({ status: "succeeded", receivedAtom: 2000 });
  });

  it("cancel releases a hold", async () => {
    const held = await stripe.charge(charge({ captureMethod: "manual" }));
    expect(await stripe.cancel({ reference: held.reference, idempotencyKey: "cancel-1" })).toMatchObject({ status: "canceled" });
  });

  it("refunds a charge: pending (our refund id as metadata, keyed by it) until Stripe settles it; re-read then", async () => {
    const paid = await stripe.charge(charge({}));
    const refund = { reference: paid.reference, paymentMethod: "pm_card_visa", amountAtom: 1000, refundId: "re_ours_1" };
    const pending = await stripe.refund(refund);
    expect(pending).toMatchObject({ status: "pending", reference: expect.stringMatching(/^re_/) });
    // Sent again (a lost answer): the same refund, not a second one.
    expect(await stripe.refund(refund)).toEqual(pending);
    expect([...standIn.refunds.values()].filter((made) => made.metadata?.refund === "re_ours_1")).toHaveLength(1);
    await standIn.settleRefund(pending.reference!, true);
    expect(await stripe.retrieveRefund(pending.reference!)).toEqual({ status: "succeeded", reference: pending.reference });
  });

  it("a refund Stripe fails reads failed, with its reason", async () => {
    const paid = await stripe.charge(charge({}));
    const pending = await stripe.refund({ reference: paid.reference, paymentMethod: "pm_card_visa", amountAtom: 500, refundId: "re_ours_2" });
    await standIn.settleRefund(pending.reference!, false);
    expect(await stripe.retrieveRefund(pending.reference!)).toMatchObject({ status: "failed", message: expect.stringContaining("expired_or_canceled_card") });
  });
});

describe("disputes", () => {
  it("a dispute reads in the interface's terms (its PaymentIntent, amount, reason, Stripe's status, evidence due), re-read as it moves", async () => {
    const paid = await stripe.charge(charge({ amountAtom: 4000 }));
    const opened = await standIn.openDispute(paid.reference!, { amount: 3000, reason: "duplicate" });
    expect(opened.id).toMatch(/^du_/);
    expect(await stripe.retrieveDispute(opened.id)).toEqual({
      reference: opened.id,
      paymentReference: paid.reference,
      amountAtom: 3000,
      currency: "usd",
      reason: "duplicate",
      status: "needs_response",
      evidenceDueBy: new Date(opened.evidence_details.due_by! * 1000),
    });
    await standIn.submitDisputeEvidence(opened.id);
    expect(await stripe.retrieveDispute(opened.id)).toMatchObject({ status: "under_review", evidenceDueBy: null });
    await standIn.closeDispute(opened.id, "won");
    expect(await stripe.retrieveDispute(opened.id)).toMatchObject({ status: "won" });
    // Only a succeeded charge can be disputed; an unknown dispute is Stripe's 404, refused.
    const held = await stripe.charge(charge({ captureMethod: "manual" }));
    await expect(standIn.openDispute(held.reference!)).rejects.toThrow(/requires_capture/);
    await expect(stripe.retrieveDispute("du_missing")).rejects.toBeInstanceOf(ProcessorRefusedError);
  });

  it("Stripe's appeal statuses read as the ones they repeat; a status the interface does not know reads null", async () => {
    const paid = await stripe.charge(charge({}));
    const opened = await standIn.openDispute(paid.reference!);
    standIn.disputes.get(opened.id)!.status = "appeal_under_review";
    expect(await stripe.retrieveDispute(opened.id)).toMatchObject({ status: "under_review" });
    standIn.disputes.get(opened.id)!.status = "prevented";
    expect(await stripe.retrieveDispute(opened.id)).toMatchObject({ status: null });
  });
});

describe("idempotency and faults", () => {
  it("the same attempt sent twice is one PaymentIntent and one charge", async () => {
    const request = charge({});
    const chargesBefore = standIn.charges.length;
    const first = await stripe.charge(request);
    const second = await stripe.charge(request);
    expect(second.reference).toBe(first.reference);
    expect(standIn.charges.length - chargesBefore).toBe(1);
  });

  it("the stand-in refuses a key reused with other parameters (400), as Stripe does", async () => {
    const sdk = new Stripe(keys.secret_key, { host: "127.0.0.1", port: new URL(standIn.url).port, protocol: "http", maxNetworkRetries: 0 });
    await sdk.customers.create({ email: "one@example.com" }, { idempotencyKey: "same-key" });
    const again = await sdk.customers.create({ email: "one@example.com" }, { idempotencyKey: "same-key" });
    const other = sdk.customers.create({ email: "two@example.com" }, { idempotencyKey: "same-key" });
    await expect(other).rejects.toMatchObject({ statusCode: 400, type: "StripeIdempotencyError" });
    expect(standIn.requests.filter((request) => request.idempotencyKey === "same-key").map((request) => request.replayed)).toEqual([false, true, false]);
    expect(again.email).toBe("one@example.com");
  });

  it("a charge whose answer is lost (500 after Stripe charged) is retried with the same key: exactly one charge", async () => {
    const request = charge({});
    const chargesBefore = standIn.charges.length;
    standIn.fault({ path: /^\/v1\/payment_intents$/, status: 500, count: 1, afterProcessing: true });
    const state = await stripe.charge(request);
    expect(state).toMatchObject({ status: "succeeded", receivedAtom: 2500 });
    expect(standIn.charges.length - chargesBefore).toBe(1);
    const sent = standIn.requests.filter((recorded) => recorded.idempotencyKey === request.idempotencyKey);
    expect(sent.map((recorded) => [recorded.status, recorded.replayed])).toEqual([
      [500, false],
      [200, true],
    ]);
  });

  it("Stripe failing every retry is ProcessorUnavailableError, and nothing was charged", async () => {
    const chargesBefore = standIn.charges.length;
    standIn.fault({ path: /^\/v1\/payment_intents$/, status: 500, count: 3 });
    await expect(stripe.charge(charge({}))).rejects.toThrow(ProcessorUnavailableError);
    expect(standIn.charges.length).toBe(chargesBefore);
  });
});

describe("webhooks", () => {
  it("a signed event verifies and names its object; a tampered or stale one does not", () => {
    const payload = JSON.stringify({ id: "evt_1", object: "event", type: "payment_intent.succeeded", data: { object: { id: "pi_1", object: "payment_intent" } } });
    const headers = new Headers({ "stripe-signature": standIn.sign(payload, connection.webhookEndpointId) });
    expect(stripe.parseWebhook(payload, headers)).toMatchObject({ id: "evt_1", type: "payment_intent.succeeded", objectReference: "pi_1" });
    expect(() => stripe.parseWebhook(payload.replace("pi_1", "pi_2"), headers)).toThrow();
    const stale = new Headers({ "stripe-signature": standIn.sign(payload, connection.webhookEndpointId, Math.floor(Date.now() / 1000) - 301) });
    expect(() => stripe.parseWebhook(payload, stale)).toThrow();
  });
});
