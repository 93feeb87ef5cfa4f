import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, apiRoot, type Client } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { connectStripe } from "../helpers/stripe-stand-in";
import { sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";
import { CLOCK_TEST_ENV } from "../setup/api-server";

/*
 * Issue #36, "kill -9 of the app between Stripe's success and our commit → 0 double charges, 0
 * payments lost after reconciliation". An app of its own (the victim) sends 20 charges to the
 * Stripe stand-in, which holds each unanswered; the victim is killed with SIGKILL while all 20 are
 * at Stripe; then Stripe carries them out (the money moved, the answers go nowhere). The merchant's
 * webhooks are dropped, so nothing but the reconciliation job can learn of the charges: the
 * sandbox account's test clock is moved past RECONCILE_AFTER_MS and every intent must be
 * succeeded, each with one payment, and Stripe must have charged each once. The fault matches this
 * file's amounts only (880000–880019), so other files' charges on the shared stand-in go through.
 */

const standIn = sharedStripeStandIn();
const TEST_KEYS = { processor: "stripe", secret_key: "sk_test_crash_test_cr4sh", publishable_key: "pk_test_crash_test_cr4sh" };
const CHARGES = 20;
const amountOf = (i: number) => 880_000 + i;
const MINUTE = 60_000;

let sql: postgres.Sql;
let victim: RunningApp | undefined;
let sandbox: Client;
let account: string;
let token: string;
let endpointId: string;

beforeAll(async () => {
  sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
  const merchant = await newMerchant();
  token = merchant.sandboxSecret.token;
  sandbox = api(token);
  account = merchant.sandboxAccountId;
  endpointId = await connectStripe(sandbox, account, TEST_KEYS);
});

afterAll(async () => {
  await victim?.stop();
  await standIn.endpointDelivery(endpointId, { drop: false });
  await sql.end();
});

describe("kill -9 between Stripe's charge and our commit", () => {
  it("20 charges made at Stripe while the app died: the reconciliation applies each once; none lost, none twice", { timeout: 300_000 }, async () => {
    // Stripe's webhooks never reach us: only the reconciliation can heal.
    await standIn.endpointDelivery(endpointId, { drop: true });
    victim = await startApp({ DATABASE_URL: inject("databaseUrl"), ...CLOCK_TEST_ENV, STRIPE_API_BASE: standIn.url });
    await standIn.fault({ path: /^\/v1\/payment_intents$/, body: /(^|&)amount=8800(0\d|1\d)(&|$)/, status: 200, count: CHARGES, hang: true });
    const client = api(token, apiRoot(victim.baseUrl));
    const paying = Array.from({ length: CHARGES }, (_, i) =>
      client.post(`/${account}/payment-intents`, { amount_atom: amountOf(i), currency: "usd", payment_method: "pm_card_visa", confirm: true }).catch(() => null),
    );
    // All 20 recorded in flight (committed) and held at Stripe.
    const inFlight = await eventually(
      async () => sql`SELECT id FROM payment_intents WHERE account_id = ${account} AND charge_in_flight IS NOT NULL`,
      (rows) => rows.length === CHARGES,
    );
    const keys = new Set(inFlight.map((row) => `${row.id}-confirm-1`));
    await eventually(
      () => standIn.state(),
      (state) => state.requests.filter((request) => request.hanging === true && keys.has(request.idempotencyKey ?? "")).length === CHARGES,
    );
    await victim.kill();
    const answers = await Promise.all(paying);
    expect(answers.filter((answer) => answer?.status === 201)).toEqual([]);
    victim = undefined;
    // Stripe carries them out: the money moves, the answers reach a dead socket.
    await standIn.release();
    await eventually(
      () => standIn.state(),
      (state) => state.requests.filter((request) => keys.has(request.idempotencyKey ?? "") && request.status === 200).length === CHARGES,
    );
    const charged = (await standIn.state()).paymentIntents.filter((intent) => keys.has(`${intent.metadata.payment_intent}-confirm-1`));
    expect(charged.map((intent) => intent.status)).toEqual(Array(CHARGES).fill("succeeded"));
    // Nothing of ours knows yet.
    const [pending] = await sql`SELECT count(*)::int AS n FROM payment_intents WHERE account_id = ${account} AND status = 'succeeded'`;
    expect(pending!.n).toBe(0);

    // 16 minutes on (the shared app's clock): the reconciliation re-sends each with its own key and applies Stripe's answer.
    const clock = await sandbox.get(`/${account}/test-clock`);
    const moved = await sandbox.post(`/${account}/test-clock/advance`, { to: new Date(Date.parse(clock.body.now) + 16 * MINUTE).toISOString() });
    expect(moved.status, moved.text).toBe(200);

    const state = await standIn.state();
    for (const row of inFlight) {
      const intent = (await sandbox.get(`/${account}/payment-intents/${row.id}`)).body;
      expect(intent, row.id as string).toMatchObject({ status: "succeeded" });
      expect(intent.amount_received_atom).toBe(intent.amount_atom);
      const payments = (await sandbox.get(`/${account}/payments?payment_intent=${row.id}`)).body.items;
      expect(payments, row.id as string).toHaveLength(1);
      const atStripe = state.paymentIntents.filter((candidate) => candidate.metadata.payment_intent === row.id);
      expect(atStripe, row.id as string).toHaveLength(1);
      expect(state.charges.filter((charge) => charge === atStripe[0]!.id), row.id as string).toHaveLength(1);
    }
    const [left] = await sql`SELECT count(*)::int AS n FROM payment_intents WHERE account_id = ${account} AND (charge_in_flight IS NOT NULL OR reconcile_at IS NOT NULL)`;
    expect(left!.n).toBe(0);
  });
});
