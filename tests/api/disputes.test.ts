import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { connectStripe } from "../helpers/stripe-stand-in";
import { sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * Disputes (docs/payments.md, "Disputes"): Stripe's charge.dispute.* webhooks, re-read at Stripe
 * and applied once, against the app the api project starts with the Stripe stand-in as its Stripe
 * (tests/setup/api-server.ts). The stand-in is shared: each test looks at its own merchant's
 * objects, and holds, duplicates or reorders only its own webhook endpoint's deliveries.
 */

const standIn = sharedStripeStandIn();
const LIVE_KEYS = { processor: "stripe", secret_key: "sk_live_disputes_test_d1sp", publishable_key: "pk_live_disputes_test_d1sp" };

let sql: postgres.Sql;
let merchant: Merchant;
let endpointId: string;

beforeAll(async () => {
  sql = postgres(inject("databaseUrl"), { max: 1 });
  merchant = await newMerchant();
  endpointId = await connectStripe(merchant.client, merchant.accountId, LIVE_KEYS);
});

afterAll(async () => {
  await sql.end();
});

const get = async (path: `/${string}`) => {
  const response = await merchant.client.get(`/${merchant.accountId}${path}` as `/${string}/disputes`);
  expect(response.status, response.text).toBe(200);
  return response.body;
};

/** A succeeded payment charged through Stripe: ours, and Stripe's PaymentIntent id. */
async function stripePayment(amount: number): Promise<{ payment: Json; stripeIntent: string }> {
  const intent = await merchant.client.post(`/${merchant.accountId}/payment-intents`, { amount_atom: amount, currency: "usd", payment_method: "pm_card_visa", confirm: true });
  expect(intent.body, intent.text).toMatchObject({ status: "succeeded" });
  const payments = await get(`/payments?payment_intent=${intent.body.id}`);
  const atStripe = (await standIn.state()).paymentIntents.filter((candidate) => candidate.metadata.payment_intent === intent.body.id);
  expect(atStripe).toHaveLength(1);
  return { payment: payments.items[0], stripeIntent: atStripe[0]!.id };
}

/** The payment's disputes once `accept` holds (the webhook's job applies them after answering Stripe). */
const disputesOf = (paymentId: string, accept: (items: Json[]) => boolean) =>
  eventually(async () => (await get(`/disputes?payment=${paymentId}`)).items as Json[], accept);

async function eventsOf(type: string, disputeId: string): Promise<Json[]> {
  const page = await get(`/events?event_type=${type}&limit=100`);
  return page.items.filter((event: Json) => event.aggregate_id === disputeId);
}

/** The stored processor events of a Stripe dispute, once the job has applied (or ignored) each. */
const storedEvents = (disputeReference: string, count: number) =>
  eventually(
    async () => sql`SELECT event_id, type, status, attempts FROM processor_events WHERE account_id = ${merchant.accountId} AND object_reference = ${disputeReference} ORDER BY received`,
    (rows) => rows.length === count && rows.every((row) => row.status !== "pending"),
  );

describe("disputes through Stripe", () => {
  it("a dispute opened at Stripe becomes ours (dispute.created); evidence submitted is dispute.updated; lost is dispute.closed", async () => {
    const { payment, stripeIntent } = await stripePayment(3000);
    const atStripe = await standIn.openDispute(stripeIntent, { amount: 2000, reason: "product_not_received" });
    const [opened] = await disputesOf(payment.id, (items) => items.length === 1);
    expect(opened).toEqual({
      object: "dispute",
      id: expect.stringMatching(/^dp_prod_/),
      payment: payment.id,
      payment_intent: payment.payment_intent,
      processor: "stripe",
      processor_dispute: atStripe.id,
      amount_atom: 2000,
      currency: "usd",
      reason: "product_not_received",
      status: "needs_response",
      evidence_due_by: new Date(atStripe.evidence_details.due_by! * 1000).toISOString(),
      livemode: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect(atStripe.id).toMatch(/^du_/);
    expect(await get(`/disputes/${opened!.id}`)).toEqual(opened);
    // The unscoped path reads the token's account.
    expect((await merchant.client.get(`/disputes/${opened!.id}`)).body).toEqual(opened);
    const [created] = await eventsOf("dispute.created", opened!.id);
    expect(created).toMatchObject({ data: opened, previous_data: null, actor_type: "system" });

    await standIn.submitDisputeEvidence(atStripe.id);
    await disputesOf(payment.id, (items) => items[0]?.status === "under_review");
    const [updated] = await eventsOf("dispute.updated", opened!.id);
    expect(updated).toMatchObject({ data: { status: "under_review", evidence_due_by: null }, previous_data: { status: "needs_response" } });

    await standIn.closeDispute(atStripe.id, "lost");
    const [lost] = await disputesOf(payment.id, (items) => items[0]?.status === "lost");
    const closed = await eventsOf("dispute.closed", opened!.id);
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ data: lost, previous_data: { status: "under_review" } });
    expect((await storedEvents(atStripe.id, 3)).map((row) => row.type)).toEqual(["charge.dispute.created", "charge.dispute.updated", "charge.dispute.closed"]);
  });

  it("won: dispute.closed with status won", async () => {
    const { payment, stripeIntent } = await stripePayment(1500);
    const atStripe = await standIn.openDispute(stripeIntent);
    await disputesOf(payment.id, (items) => items.length === 1);
    await standIn.closeDispute(atStripe.id, "won");
    const [won] = await disputesOf(payment.id, (items) => items[0]?.status === "won");
    expect(won).toMatchObject({ amount_atom: 1500, reason: "fraudulent" });
    expect(await eventsOf("dispute.closed", won!.id)).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: "won" }) })]);
  });

  it("duplicated and reordered webhooks apply once: the first re-read finds it lost, the rest change nothing", async () => {
    const { payment, stripeIntent } = await stripePayment(2200);
    // Only this merchant's endpoint: every event held, sent twice, and flushed newest first.
    await standIn.endpointDelivery(endpointId, { hold: true, duplicate: true, reorder: true });
    let disputeReference: string;
    try {
      const atStripe = await standIn.openDispute(stripeIntent);
      disputeReference = atStripe.id;
      await standIn.closeDispute(atStripe.id, "lost");
      await standIn.flushEndpoint(endpointId);
    } finally {
      await standIn.endpointDelivery(endpointId, { hold: false, duplicate: false, reorder: false });
    }
    const deliveries = (await standIn.state()).deliveries.filter((delivery) => delivery.type.startsWith("charge.dispute."));
    const stored = await storedEvents(disputeReference, 3);
    // closed, updated, created: each delivered twice, stored once; each re-reads the same (lost) state, so one makes the dispute.
    expect(stored.map((row) => row.type)).toEqual(["charge.dispute.closed", "charge.dispute.updated", "charge.dispute.created"]);
    // Applied by one pass at a time, oldest first: the first made the dispute, the others found nothing to change.
    expect(stored.map((row) => [row.status, row.attempts])).toEqual([["applied", 1], ["ignored", 1], ["ignored", 1]]);
    for (const row of stored) expect(deliveries.filter((delivery) => delivery.eventId === row.event_id && delivery.status === 200).length).toBeGreaterThanOrEqual(2);
    const [dispute] = await disputesOf(payment.id, (items) => items.length > 0);
    expect(dispute).toMatchObject({ status: "lost", processor_dispute: disputeReference, evidence_due_by: null });
    expect(await get(`/disputes?payment=${payment.id}`)).toMatchObject({ total: 1 });
    // First seen closed: made and closed by the same re-read, never "updated".
    expect(await eventsOf("dispute.created", dispute!.id)).toHaveLength(1);
    expect(await eventsOf("dispute.closed", dispute!.id)).toHaveLength(1);
    expect(await eventsOf("dispute.updated", dispute!.id)).toHaveLength(0);
  });

  it("a late event of a closed dispute never reopens it (the job re-reads the dispute at Stripe)", async () => {
    const { payment, stripeIntent } = await stripePayment(900);
    const atStripe = await standIn.openDispute(stripeIntent);
    await standIn.closeDispute(atStripe.id, "won");
    const [won] = await disputesOf(payment.id, (items) => items[0]?.status === "won");
    await storedEvents(atStripe.id, 3);
    // An older state (needs_response) arrives late, signed by the endpoint's secret: stored, ignored.
    const connection = (await merchant.client.get(`/${merchant.accountId}/payment-processor`)).body;
    const payload = JSON.stringify({ id: `evt_late_${atStripe.id}`, object: "event", type: "charge.dispute.created", data: { object: { ...atStripe, status: "needs_response" } } });
    const endpoint = (await standIn.state()).webhookEndpoints.find((candidate) => candidate.id === endpointId)!;
    const { default: Stripe } = await import("stripe");
    const signature = new Stripe("sk_test_signer").webhooks.generateTestHeaderString({ payload, secret: endpoint.secret! });
    const received = await fetch(connection.webhook_url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": signature }, body: payload });
    expect(received.status).toBe(200);
    const rows = await storedEvents(atStripe.id, 4);
    expect(rows.at(-1)).toMatchObject({ event_id: `evt_late_${atStripe.id}`, status: "ignored" });
    expect(await get(`/disputes/${won!.id}`)).toEqual(won);
    expect(await eventsOf("dispute.created", won!.id)).toHaveLength(1);
  });
});

describe("listing and reading disputes", () => {
  let first: { payment: Json; dispute: Json };
  let second: { payment: Json; dispute: Json };

  beforeAll(async () => {
    const open = async (amount: number) => {
      const { payment, stripeIntent } = await stripePayment(amount);
      await standIn.openDispute(stripeIntent);
      const [dispute] = await disputesOf(payment.id, (items) => items.length === 1);
      return { payment, dispute: dispute! };
    };
    first = await open(700);
    second = await open(800);
  });

  it("filters by payment and by payment intent; pages by cursor, newest first", async () => {
    expect((await get(`/disputes?payment=${first.payment.id}`)).items).toEqual([first.dispute]);
    expect((await get(`/disputes?payment_intent=${second.payment.payment_intent}`)).items).toEqual([second.dispute]);
    const page = await get("/disputes?limit=1");
    expect(page).toMatchObject({ has_more: true });
    const newest = page.items[0];
    const next = await get(`/disputes?limit=100&starting_after=${newest.id}`);
    expect(next.items.map((dispute: Json) => dispute.id)).not.toContain(newest.id);
    const all = await get("/disputes?limit=100");
    expect(all.items.map((dispute: Json) => dispute.id)).toEqual(expect.arrayContaining([first.dispute.id, second.dispute.id]));
    expect(all.items.findIndex((dispute: Json) => dispute.id === second.dispute.id)).toBeLessThan(all.items.findIndex((dispute: Json) => dispute.id === first.dispute.id));
    expect(all.total).toBe(all.items.length);
    expect(await get("/disputes?payment=py_prod_nothing")).toMatchObject({ items: [], total: 0, has_more: false });
  });

  it("another account's dispute is a 404, on its own path and on the unscoped one", async () => {
    const other = await newMerchant();
    expectProblem(await other.client.get(`/${other.accountId}/disputes/${first.dispute.id}`), 404);
    expectProblem(await other.client.get(`/disputes/${first.dispute.id}`), 404);
    expect((await other.client.get(`/${other.accountId}/disputes?payment=${first.payment.id}`)).body).toMatchObject({ items: [], total: 0 });
    // Its sandbox account does not see the live one's either.
    expectProblem(await api(other.sandboxSecret.token).get(`/${other.sandboxAccountId}/disputes/${first.dispute.id}`), 404);
  });
});
