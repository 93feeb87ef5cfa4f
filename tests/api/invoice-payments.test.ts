import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdInvoiceLock } from "../helpers/invoice-lock";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type Receiver } from "../helpers/receiver";
import { receiverEndpoint } from "../helpers/webhooks";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PI = /^pi_[a-z]+_[0-9a-z]{29}$/;
const LIVE_REFUSAL = "sandbox payment methods work only on sandbox accounts; a live account is charged through a connected processor (PUT /payment-processor)";
const DECLINE = "Your card was declined (sandbox payment method pm_sandbox_declined).";

let merchant: Merchant;
let sandbox: Client;
let account: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function newCustomer(client: Client = sandbox, accountId: string = account): Promise<string> {
  const response = await client.post(`/${accountId}/customers`, { email: "payer@example.com" });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

/** An open invoice of `amount` for a new customer (of the sandbox account unless told). */
async function openInvoice(amount = 1000, client: Client = sandbox, accountId: string = account): Promise<Json> {
  const customer = await newCustomer(client, accountId);
  const created = await client.post(`/${accountId}/invoices`, {
    customer,
    currency: "usd",
    lines: [{ unit_amount_atom: amount, description: "Plan" }],
  });
  expect(created.status, created.text).toBe(201);
  const finalized = await client.post(`/${accountId}/invoices/${created.body.id}/finalize`);
  expect(finalized.status, finalized.text).toBe(200);
  expect(finalized.body).toMatchObject({ status: "open", due_amount_atom: amount, payment_intent: null });
  return finalized.body;
}

function pay(invoiceId: string, body: Json, options: { client?: Client; accountId?: string; correlationId?: string } = {}) {
  const headers: Record<string, string> = options.correlationId ? { "X-Correlation-Id": options.correlationId } : {};
  return (options.client ?? sandbox).post(`/${options.accountId ?? account}/invoices/${invoiceId}/pay`, body, { headers });
}

/** The aggregate's events, oldest first. */
async function eventsOf(aggregateId: string, client: Client = sandbox, accountId: string = account): Promise<Json[]> {
  const response = await client.get(`/${accountId}/events?aggregate_id=${aggregateId}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}
const typesOf = async (aggregateId: string, client: Client = sandbox, accountId: string = account) =>
  (await eventsOf(aggregateId, client, accountId)).map((e: Json) => e.type);

const getInvoice = async (id: string, client: Client = sandbox, accountId: string = account) =>
  (await client.get(`/${accountId}/invoices/${id}`)).body;
const getIntent = async (id: string) => (await sandbox.get(`/${account}/payment-intents/${id}`)).body;
const intentsOf = async (customer: string, client: Client = sandbox, accountId: string = account) =>
  (await client.get(`/${accountId}/payment-intents?customer=${customer}`)).body.items as Json[];
const paymentsOf = async (intentId: string) =>
  [...(await sandbox.get(`/${account}/payments?payment_intent=${intentId}`)).body.items].reverse() as Json[];

const OPENED = ["invoice.created", "invoice.finalized"];
const PAID = ["invoice.paid", "invoice.payment_succeeded"];

describe("paying an invoice with a sandbox payment method", () => {
  it.each(["pm_sandbox_succeeds", "pm_sandbox_refund_fails"])(
    "%s: paid as out of band (due 0, paid = total), the intent succeeded, all in one transaction",
    async (method) => {
      const open = await openInvoice(1000);
      const response = await pay(open.id, { payment_method: method }, { correlationId: `inv-pay-${method}` });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({
        ...open,
        status: "paid",
        due_amount_atom: 0,
        paid_amount_atom: 1000,
        payment_intent: expect.stringMatching(PI),
        paid_at: expect.stringMatching(ISO),
        // The PDF's paid version, fixed with the payment (docs/invoices-and-tax.md, "As issued, then paid").
        paid_pdf_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        updated: expect.stringMatching(ISO),
      });
      expect(await getInvoice(open.id)).toEqual(response.body);

      const events = await eventsOf(open.id);
      expect(events.map((e) => e.type)).toEqual([...OPENED, ...PAID]);
      for (const event of events.slice(2)) {
        expect(event.data).toEqual(response.body);
        expect(event.previous_data).toMatchObject({ status: "open", due_amount_atom: 1000, paid_amount_atom: 0 });
        expect(event.correlation_id).toBe(`inv-pay-${method}`);
      }

      const intent = await getIntent(response.body.payment_intent);
      expect(intent).toMatchObject({
        amount_atom: 1000,
        amount_received_atom: 1000,
        currency: "usd",
        customer: open.customer,
        invoice: open.id,
        status: "succeeded",
        payment_method: method,
      });
      const intentEvents = await eventsOf(intent.id);
      expect(intentEvents.map((e) => e.type)).toEqual(["payment_intent.created", "payment_intent.processing", "payment_intent.succeeded"]);
      expect(intentEvents.every((e) => e.correlation_id === `inv-pay-${method}`)).toBe(true);
      expect(await paymentsOf(intent.id)).toEqual([expect.objectContaining({ status: "succeeded", amount_atom: 1000 })]);
    },
  );

  it("pm_sandbox_declined: 200 with the invoice still open, invoice.payment_failed; paying again with another method pays it", async () => {
    const open = await openInvoice(1000);
    const response = await pay(open.id, { payment_method: "pm_sandbox_declined" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...open, payment_intent: expect.stringMatching(PI), updated: open.updated });
    expect(await getInvoice(open.id)).toEqual(response.body);
    const events = await eventsOf(open.id);
    expect(events.map((e) => e.type)).toEqual([...OPENED, "invoice.payment_failed"]);
    expect(events[2]!.data).toEqual(response.body);

    const intent = await getIntent(response.body.payment_intent);
    expect(intent).toMatchObject({
      status: "requires_payment_method",
      invoice: open.id,
      payment_method: null,
      last_payment_error: DECLINE,
      amount_received_atom: 0,
    });
    expect(await typesOf(intent.id)).toEqual(["payment_intent.created", "payment_intent.processing", "payment_intent.payment_failed"]);
    expect(await paymentsOf(intent.id)).toEqual([expect.objectContaining({ status: "failed", amount_atom: 1000, failure_message: DECLINE })]);

    const retried = await pay(open.id, { payment_method: "pm_sandbox_succeeds" });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 1000 });
    expect(retried.body.payment_intent).not.toBe(intent.id);
    expect(await typesOf(open.id)).toEqual([...OPENED, "invoice.payment_failed", ...PAID]);
  });

  it("pm_sandbox_requires_action: invoice open, invoice.payment_action_required; confirming the intent later pays the invoice", async () => {
    const open = await openInvoice(1000);
    const response = await pay(open.id, { payment_method: "pm_sandbox_requires_action" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ ...open, payment_intent: expect.stringMatching(PI) });
    expect(await typesOf(open.id)).toEqual([...OPENED, "invoice.payment_action_required"]);
    const intentId = response.body.payment_intent;
    expect(await getIntent(intentId)).toMatchObject({ status: "requires_action", invoice: open.id });
    expect(await typesOf(intentId)).toEqual(["payment_intent.created", "payment_intent.requires_action"]);

    // The customer completed the action.
    const confirmed = await sandbox.post(`/${account}/payment-intents/${intentId}/confirm`, {}, { headers: { "X-Correlation-Id": "inv-action-done" } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ status: "succeeded", amount_received_atom: 1000 });
    const paid = await getInvoice(open.id);
    expect(paid).toMatchObject({ status: "paid", due_amount_atom: 0, paid_amount_atom: 1000, paid_at: expect.stringMatching(ISO), payment_intent: intentId });
    const events = await eventsOf(open.id);
    expect(events.map((e) => e.type)).toEqual([...OPENED, "invoice.payment_action_required", ...PAID]);
    expect(events.slice(3).every((e) => e.correlation_id === "inv-action-done")).toBe(true);
    expect(events[3]!.data).toEqual(paid);
    expect(await typesOf(intentId)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.processing",
      "payment_intent.succeeded",
    ]);
  });

  it("pm_sandbox_partially_funded: invoice open, paid grows and due shrinks by what arrived (no invoice event); the rest then pays it", async () => {
    const open = await openInvoice(1001);
    const response = await pay(open.id, { payment_method: "pm_sandbox_partially_funded" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      ...open,
      status: "open",
      paid_amount_atom: 500,
      due_amount_atom: 501,
      payment_intent: expect.stringMatching(PI),
      updated: expect.stringMatching(ISO),
    });
    expect(await typesOf(open.id)).toEqual(OPENED);
    const intentId = response.body.payment_intent;
    expect(await getIntent(intentId)).toMatchObject({ status: "partially_funded", amount_atom: 1001, amount_received_atom: 500 });
    expect(await typesOf(intentId)).toEqual(["payment_intent.created", "payment_intent.processing", "payment_intent.partially_funded"]);

    const rest = await sandbox.post(`/${account}/payment-intents/${intentId}/confirm`, { payment_method: "pm_sandbox_succeeds" });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ status: "succeeded", amount_received_atom: 1001 });
    expect(await getInvoice(open.id)).toMatchObject({ status: "paid", paid_amount_atom: 1001, due_amount_atom: 0 });
    const events = await eventsOf(open.id);
    expect(events.map((e) => e.type)).toEqual([...OPENED, ...PAID]);
    expect(events[2]!.previous_data).toMatchObject({ status: "open", paid_amount_atom: 500, due_amount_atom: 501 });
    expect((await paymentsOf(intentId)).map((p) => p.amount_atom)).toEqual([500, 501]);
  });

  it("an uncollectible invoice can be paid with a method too", async () => {
    const open = await openInvoice(700);
    expect((await sandbox.post(`/${account}/invoices/${open.id}/mark-uncollectible`)).status).toBe(200);
    const response = await pay(open.id, { payment_method: "pm_sandbox_succeeds" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ status: "paid", paid_amount_atom: 700, due_amount_atom: 0 });
  });
});

describe("refunds of an invoice's payment", () => {
  it("a succeeded refund emits invoice.refunded; the invoice stays paid with its amounts", async () => {
    const open = await openInvoice(1000);
    const paid = (await pay(open.id, { payment_method: "pm_sandbox_succeeds" })).body;
    const [payment] = await paymentsOf(paid.payment_intent);
    const refund = await sandbox.post(`/${account}/refunds`, { payment: payment!.id, amount_atom: 400 }, { headers: { "X-Correlation-Id": "inv-refund" } });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.body.status).toBe("succeeded");

    expect(await getInvoice(open.id)).toEqual(paid);
    const events = await eventsOf(open.id);
    expect(events.map((e) => e.type)).toEqual([...OPENED, ...PAID, "invoice.refunded"]);
    expect(events[4]).toMatchObject({ data: paid, previous_data: null, correlation_id: "inv-refund" });

    // The rest: a second invoice.refunded.
    expect((await sandbox.post(`/${account}/refunds`, { payment: payment!.id })).status).toBe(201);
    expect(await typesOf(open.id)).toEqual([...OPENED, ...PAID, "invoice.refunded", "invoice.refunded"]);
  });

  it("a failed refund (pm_sandbox_refund_fails) emits nothing on the invoice", async () => {
    const open = await openInvoice(1000);
    const paid = (await pay(open.id, { payment_method: "pm_sandbox_refund_fails" })).body;
    const [payment] = await paymentsOf(paid.payment_intent);
    const refund = await sandbox.post(`/${account}/refunds`, { payment: payment!.id });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.body.status).toBe("failed");
    expect(await typesOf(open.id)).toEqual([...OPENED, ...PAID]);
  });
});

describe("refusals change nothing", () => {
  it("a live account refuses sandbox methods (422 on payment_method): no intent, no event", async () => {
    const open = await openInvoice(1000, merchant.client, merchant.accountId);
    const refused = await pay(open.id, { payment_method: "pm_sandbox_succeeds" }, { client: merchant.client, accountId: merchant.accountId });
    expectProblem(refused, 422);
    expect(refused.body.errors).toEqual([{ field: "payment_method", message: `${LIVE_REFUSAL}.` }]);
    expect(await getInvoice(open.id, merchant.client, merchant.accountId)).toEqual(open);
    expect(await typesOf(open.id, merchant.client, merchant.accountId)).toEqual(OPENED);
    expect(await intentsOf(open.customer, merchant.client, merchant.accountId)).toEqual([]);
  });

  it.each([
    ["both", { paid_out_of_band: true, payment_method: "pm_sandbox_succeeds" }, "payment_method"],
    ["neither", {}, "paid_out_of_band"],
    ["paid_out_of_band false", { paid_out_of_band: false }, "paid_out_of_band"],
    ["an unknown method", { payment_method: "pm_card_visa" }, "payment_method"],
  ])("%s: 422 naming %s, invoice unchanged", async (_case, body, field) => {
    const open = await openInvoice(1000);
    const refused = await pay(open.id, body);
    expectProblem(refused, 422);
    expect(refused.body.errors).toEqual([{ field, message: expect.any(String) }]);
    expect(await getInvoice(open.id)).toEqual(open);
    expect(await typesOf(open.id)).toEqual(OPENED);
    expect(await intentsOf(open.customer)).toEqual([]);
  });

  it("a paid invoice: 409, no intent is created", async () => {
    const open = await openInvoice(1000);
    const paid = (await pay(open.id, { paid_out_of_band: true })).body;
    expectProblem(await pay(open.id, { payment_method: "pm_sandbox_succeeds" }), 409, /is paid/);
    expect(await getInvoice(open.id)).toEqual(paid);
    expect(await intentsOf(open.customer)).toEqual([]);
  });

  it("confirming an invoice's intent after the invoice was voided: 409, the intent unchanged", async () => {
    const open = await openInvoice(1000);
    const pending = (await pay(open.id, { payment_method: "pm_sandbox_requires_action" })).body;
    expect((await sandbox.post(`/${account}/invoices/${open.id}/void`)).status).toBe(200);
    const intentBefore = await getIntent(pending.payment_intent);
    expectProblem(await sandbox.post(`/${account}/payment-intents/${pending.payment_intent}/confirm`, {}), 409, /is void/);
    expect(await getIntent(pending.payment_intent)).toEqual(intentBefore);
    expect(await paymentsOf(pending.payment_intent)).toEqual([]);
  });
});


describe("invoice_locked", () => {
  it("paying with a method while another operation holds the invoice: 409 invoice_locked, no intent; the retry pays it", async () => {
    const open = await openInvoice(1000);
    const release = await holdInvoiceLock(open.id);
    let refused;
    try {
      refused = await pay(open.id, { payment_method: "pm_sandbox_succeeds" });
    } finally {
      await release();
    }
    expectProblem(refused, 409, /is being modified by another operation/);
    expect(refused.body).toMatchObject({ error_code: "invoice_locked", retryable: true, invoice_id: open.id, subscription_id: null });
    expect(await getInvoice(open.id)).toEqual(open);
    expect(await typesOf(open.id)).toEqual(OPENED);
    expect(await intentsOf(open.customer)).toEqual([]);

    const retried = await pay(open.id, { payment_method: "pm_sandbox_succeeds" });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.status).toBe("paid");
  });

  it("confirming an invoice's intent while the invoice is locked: 409 invoice_locked, intent and invoice unchanged", async () => {
    const open = await openInvoice(1000);
    const pending = (await pay(open.id, { payment_method: "pm_sandbox_requires_action" })).body;
    const intentBefore = await getIntent(pending.payment_intent);
    const release = await holdInvoiceLock(open.id);
    let refused;
    try {
      refused = await sandbox.post(`/${account}/payment-intents/${pending.payment_intent}/confirm`, {});
    } finally {
      await release();
    }
    expectProblem(refused, 409);
    expect(refused.body).toMatchObject({ error_code: "invoice_locked", invoice_id: open.id });
    expect(await getIntent(pending.payment_intent)).toEqual(intentBefore);
    expect(await getInvoice(open.id)).toEqual(pending);

    const confirmed = await sandbox.post(`/${account}/payment-intents/${pending.payment_intent}/confirm`, {});
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await getInvoice(open.id)).status).toBe("paid");
  });
});

describe("webhooks", () => {
  it("delivers invoice.payment_failed to a subscribed endpoint, signed, with the invoice", async () => {
    const fresh = await newMerchant();
    const sandboxClient = api(fresh.sandboxSecret.token);
    const { receiver } = await receiverEndpoint({ ...fresh, accountId: fresh.sandboxAccountId, client: sandboxClient }, ["invoice.payment_failed"]);
    receivers.push(receiver);
    const open = await openInvoice(1000, sandboxClient, fresh.sandboxAccountId);
    const failed = await pay(open.id, { payment_method: "pm_sandbox_declined" }, { client: sandboxClient, accountId: fresh.sandboxAccountId });
    expect(failed.status, failed.text).toBe(200);
    await eventually(
      async () => receiver.requests,
      (requests) => requests.length >= 1,
    );
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.signatureValid).toBe(true);
    expect(request!.body.type).toBe("invoice.payment_failed");
    expect(request!.body.data.object).toEqual(failed.body);
  });
});
