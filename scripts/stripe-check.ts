/**
 * `npm run stripe:check -- --secret-key sk_test_… --publishable-key pk_test_…`: the Stripe
 * processor (lib/payments/processors/stripe) run against Stripe's test mode, for an operator with
 * network access (docs/payments.md, "npm run stripe:check"). CI cannot reach Stripe:
 * there the same flows run against the stand-in (tests/api/stripe-check.test.ts sets
 * `STRIPE_API_BASE`). Test keys only: a live key is refused before anything is sent.
 *
 * Each check goes through the processor interface the service uses, never a hand-written request:
 * connecting (the key's account, a webhook endpoint made), a customer, a saved card, off-session
 * charges (succeeded; the same idempotency key answering the same charge; 3-D Secure required;
 * declined), manual capture and cancel, a partial refund read back, on-session preparation
 * (PaymentIntent and SetupIntent client secrets), a signed webhook verified and a forged one
 * refused, and disconnecting (the endpoint deleted). It prints one line per check and exits 1 when
 * any fails. Stripe keeps what it made in test mode (customers, intents) as test data.
 */
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { stripeProcessor } from "@/lib/payments/processors/stripe";
import type { ChargeRequest, ChargeState, PaymentProcessor, ProcessorConnection } from "@/lib/payments/processors/types";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const secretKey = option("secret-key") ?? process.env.STRIPE_CHECK_SECRET_KEY;
const publishableKey = option("publishable-key") ?? process.env.STRIPE_CHECK_PUBLISHABLE_KEY;
// Stripe never calls it during the check (no event is awaited): the endpoint only has to be made and deleted.
const webhookUrl = option("webhook-url") ?? "https://example.com/billing-service-stripe-check";

if (!secretKey || !publishableKey) {
  console.error("Usage: npm run stripe:check -- --secret-key sk_test_… --publishable-key pk_test_… [--webhook-url https://…]");
  process.exit(2);
}
if (!/^(sk|rk)_test_/.test(secretKey) || !publishableKey.startsWith("pk_test_")) {
  console.error("stripe:check runs in Stripe's test mode only: give sk_test_…/rk_test_… and pk_test_… keys.");
  process.exit(2);
}

type Check = { name: string; ok: boolean; detail: string };
const checks: Check[] = [];

async function check(name: string, run: () => Promise<string>): Promise<void> {
  try {
    const detail = await run();
    checks.push({ name, ok: true, detail });
    console.log(`ok    ${name}: ${detail}`);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    checks.push({ name, ok: false, detail });
    console.log(`FAIL  ${name}: ${detail}`);
  }
}

function expectState<S extends ChargeState["status"]>(state: ChargeState, status: S): Extract<ChargeState, { status: S }> {
  if (state.status !== status) throw new Error(`expected ${status}, Stripe's answer maps to ${state.status}${"message" in state ? ` (${state.message})` : ""}`);
  return state as Extract<ChargeState, { status: S }>;
}

/** One run's ids: Stripe keys idempotent requests by them, so a second run never replays the first. */
const run = randomUUID().slice(0, 8);
const chargeOf = (name: string, overrides: Partial<ChargeRequest>): ChargeRequest => ({
  idempotencyKey: `stripe-check-${run}-${name}`,
  intentId: `pi_check_${run}_${name}`,
  amountAtom: 1234,
  currency: "usd",
  paymentMethod: "pm_card_visa",
  processorCustomer: null,
  captureMethod: "automatic",
  offSession: false,
  actionPending: false,
  reference: null,
  ...overrides,
});

/** What the checks made, for the checks after them (null until made). */
const made: { connection: ProcessorConnection | null; processor: PaymentProcessor | null; customer: string | null; card: string | null } = {
  connection: null,
  processor: null,
  customer: null,
  card: null,
};
const need = <T>(value: T | null): T => {
  if (value === null) throw new Error("skipped: an earlier check it needs failed");
  return value;
};

await check("connect: the key's account, a webhook endpoint made", async () => {
  const connection = await stripeProcessor.connect({ credentials: { secret_key: secretKey, publishable_key: publishableKey }, livemode: false, webhookUrl });
  made.connection = connection;
  made.processor = stripeProcessor.open(connection);
  return `account ${connection.processorAccount}, endpoint ${connection.webhookEndpointId}`;
});

await check("a customer", async () => {
  const customer = (await need(made.processor).createCustomer({ customerId: `cus_check_${run}`, email: "stripe-check@example.com", name: "stripe:check" })).reference;
  made.customer = customer;
  return customer;
});

await check("a card saved for off-session charges (pm_card_visa)", async () => {
  const saved = await need(made.processor).savePaymentMethod({ processorCustomer: need(made.customer), paymentMethod: "pm_card_visa" });
  if (saved.brand !== "visa" || saved.last4 !== "4242") throw new Error(`saved as ${saved.brand} …${saved.last4}`);
  made.card = saved.reference;
  return `${saved.reference}, visa …4242, ${saved.expMonth}/${saved.expYear}`;
});

await check("an off-session charge of the saved card succeeds, and its key answers the same charge again", async () => {
  const request = chargeOf("renewal", { paymentMethod: need(made.card), processorCustomer: need(made.customer), offSession: true });
  const first = expectState(await need(made.processor).charge(request), "succeeded");
  if (first.receivedAtom !== 1234) throw new Error(`received ${first.receivedAtom}, not 1234`);
  const again = expectState(await need(made.processor).charge(request), "succeeded");
  if (again.reference !== first.reference) throw new Error(`the same key made a second charge: ${again.reference} after ${first.reference}`);
  const read = expectState(await need(made.processor).retrieve(first.reference!), "succeeded");
  return `${read.reference}, 1234 received, one charge for one key`;
});

await check("3-D Secure required off-session: the charge waits for the customer (requires_action)", async () => {
  const saved = await need(made.processor).savePaymentMethod({ processorCustomer: need(made.customer), paymentMethod: "pm_card_authenticationRequired" });
  const state = expectState(await need(made.processor).charge(chargeOf("sca", { paymentMethod: saved.reference, processorCustomer: need(made.customer), offSession: true })), "requires_action");
  return `${state.reference}`;
});

await check("a declined card (pm_card_chargeDeclined) is declined", async () => {
  const state = expectState(await need(made.processor).charge(chargeOf("declined", { paymentMethod: "pm_card_chargeDeclined" })), "declined");
  return `${state.reference}: ${state.message}`;
});

await check("manual capture: funds held, then captured", async () => {
  const held = expectState(await need(made.processor).charge(chargeOf("hold", { captureMethod: "manual" })), "requires_capture");
  if (held.capturableAtom !== 1234) throw new Error(`capturable ${held.capturableAtom}, not 1234`);
  const captured = expectState(await need(made.processor).capture({ reference: held.reference, amountAtom: 1000, idempotencyKey: `stripe-check-${run}-capture` }), "succeeded");
  return `${captured.reference}: 1000 of 1234 captured`;
});

await check("manual capture: funds held, then cancelled", async () => {
  const held = expectState(await need(made.processor).charge(chargeOf("release", { captureMethod: "manual" })), "requires_capture");
  const canceled = expectState(await need(made.processor).cancel({ reference: held.reference, idempotencyKey: `stripe-check-${run}-cancel` }), "canceled");
  return `${canceled.reference}`;
});

await check("a partial refund, read back", async () => {
  const paid = expectState(await need(made.processor).charge(chargeOf("refunded", {})), "succeeded");
  const refund = await need(made.processor).refund({ reference: paid.reference, paymentMethod: "pm_card_visa", amountAtom: 234, refundId: `re_check_${run}` });
  if (refund.status === "failed") throw new Error(`refund failed: ${refund.message}`);
  const read = await need(made.processor).retrieveRefund(need(refund.reference));
  if (read.status === "failed") throw new Error(`refund read back as failed: ${read.message}`);
  return `${refund.reference}: 234 of 1234, ${read.status}`;
});

await check("on-session: a PaymentIntent and a SetupIntent for Stripe.js (client secrets)", async () => {
  const payments = need(made.processor);
  if (!payments.prepareOnSession || !payments.prepareSetup || !payments.retrieveSetup) throw new Error("the processor does not prepare on-session payments");
  const intent = await payments.prepareOnSession({ intentId: `pi_check_${run}_browser`, idempotencyKey: `stripe-check-${run}-browser`, amountAtom: 1234, currency: "usd", processorCustomer: need(made.customer), reference: null });
  const setup = await payments.prepareSetup({ customerId: `cus_check_${run}`, processorCustomer: need(made.customer) });
  const state = await payments.retrieveSetup(setup.reference);
  if (!intent.clientSecret.startsWith(intent.reference) || !setup.clientSecret.startsWith(setup.reference)) throw new Error("a client secret does not belong to its intent");
  if (state.status !== "pending") throw new Error(`an unconfirmed SetupIntent reads ${state.status}`);
  return `${intent.reference}, ${setup.reference} (pending until the browser confirms)`;
});

await check("webhooks: a payload signed with the endpoint's secret verifies, a forged one does not", async () => {
  const secret = need(made.connection).webhookSecret;
  // The SDK's own test signer, as Stripe signs (no request is made with this client).
  const signer = new Stripe(secretKey);
  const payload = JSON.stringify({ id: `evt_check_${run}`, object: "event", type: "payment_intent.succeeded", data: { object: { id: "pi_check", object: "payment_intent", metadata: { payment_intent: "pi_ours" } } } });
  const signed = new Headers({ "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret }) });
  const event = need(made.processor).parseWebhook(payload, signed);
  if (event.objectReference !== "pi_check" || need(made.processor).ourReferenceOf(event.payload) !== "pi_ours") throw new Error("the verified event did not parse as sent");
  const forged = new Headers({ "stripe-signature": signer.webhooks.generateTestHeaderString({ payload, secret: "whsec_forged" }) });
  try {
    need(made.processor).parseWebhook(payload, forged);
  } catch {
    return `${event.id} verified; the forged signature refused`;
  }
  throw new Error("a payload signed with another secret verified");
});

await check("disconnect: the webhook endpoint deleted", async () => {
  await stripeProcessor.disconnect(need(made.connection));
  return need(made.connection).webhookEndpointId;
});

const failed = checks.filter((item) => !item.ok);
console.log(`\nstripe:check: ${checks.length - failed.length} of ${checks.length} checks passed against ${process.env.STRIPE_API_BASE ?? "https://api.stripe.com"}.`);
process.exit(failed.length === 0 ? 0 : 1);
