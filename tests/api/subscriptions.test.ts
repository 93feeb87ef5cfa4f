import { type ApiPath } from "../helpers/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceContext } from "@/lib/context";
import { renewSubscription } from "@/lib/subscriptions/renewal";
import { lineRange } from "@/lib/time";
import type { Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type Receiver } from "../helpers/receiver";
import { receiverEndpoint } from "../helpers/webhooks";

let merchant: Merchant;
let customerId: string;
let product: string;
let monthly: string;
let monthlyB: string;
const receivers: Receiver[] = [];

const price = async (body: Json, m: Merchant = merchant, productId = product) => {
  const response = await m.client.post(`/${m.accountId}/prices`, { product: productId, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" }, ...body });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
};

beforeAll(async () => {
  merchant = await newMerchant();
  customerId = (await merchant.client.post("/customers", { email: "sub@example.com" })).body.id;
  product = (await merchant.client.post("/products", { name: "Plan" })).body.id;
  monthly = await price({ unit_amount_atom: 1000 });
  monthlyB = await price({ unit_amount_atom: 250 });
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const base = (m: Merchant = merchant) => `/${m.accountId}/subscriptions` as const;
const events = async (id: string, m: Merchant = merchant): Promise<Json[]> =>
  (await m.client.get(`/${m.accountId}/events?aggregate_id=${id}`)).body.items;
const post = (path: ApiPath<"post">, body?: Json, correlationId?: string) =>
  merchant.client.post(path, body, { headers: correlationId ? { "X-Correlation-Id": correlationId } : {} });

async function subscribe(body: Json = {}, m: Merchant = merchant, customer = customerId) {
  const response = await m.client.post(base(m), { customer, items: [{ price: monthly }], ...body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe("subscriptions", () => {
  it("creates without a trial: active, first invoice finalized with the customer's percentage discount, events, one webhook", async () => {
    const fresh = await newMerchant();
    const { receiver } = await receiverEndpoint(fresh, ["customer.subscription.created"]);
    receivers.push(receiver);
    const cus = (await fresh.client.post("/customers", { email: "d@example.com" })).body.id;
    const cpn = (await fresh.client.post(`/${fresh.accountId}/coupons`, { percent_off: 10, duration: "forever" }));
    expect(cpn.status, cpn.text).toBe(201);
    const discount = await fresh.client.post(`/${fresh.accountId}/customers/${cus}/discount`, { coupon: cpn.body.id });
    expect(discount.status, discount.text).toBeLessThan(300);
    const freshProduct = (await fresh.client.post("/products", { name: "Plan" })).body.id;
    const p1 = await price({ unit_amount_atom: 1999 }, fresh, freshProduct);
    const p2 = await price({ unit_amount_atom: 500, nickname: "Extra seat" }, fresh, freshProduct);
    const response = await fresh.client.post(
      base(fresh),
      { customer: cus, items: [{ price: p1, quantity: 2 }, { price: p2 }], metadata: { plan: "pro" } },
      { headers: { "X-Correlation-Id": "sub-create-1" } },
    );
    expect(response.status, response.text).toBe(201);
    const sub = response.body;
    expect(sub).toMatchObject({
      id: expect.stringMatching(/^sub_prod_/),
      object: "subscription",
      customer: cus,
      status: "active",
      currency: "usd",
      items: [
        { id: expect.stringMatching(/^si_prod_/), price: p1, quantity: 2 },
        { id: expect.stringMatching(/^si_prod_/), price: p2, quantity: 1 },
      ],
      trial_end: null,
      cancel_at_period_end: false,
      cancelled_at: null,
      paused_at: null,
      latest_invoice: expect.stringMatching(/^in_prod_/),
      metadata: { plan: "pro" },
      livemode: true,
    });
    const start = new Date(sub.current_period_start);
    const end = new Date(sub.current_period_end);
    const expected = new Date(start);
    expected.setUTCMonth(start.getUTCMonth() + 1);
    if (start.getUTCDate() <= 28) expect(end.toISOString()).toBe(expected.toISOString());
    expect((await fresh.client.get(`/subscriptions/${sub.id}`)).body).toEqual(sub);

    const invoice = (await fresh.client.get(`/${fresh.accountId}/invoices/${sub.latest_invoice}`)).body;
    expect(invoice).toMatchObject({
      subscription: sub.id,
      customer: cus,
      status: "open",
      subtotal_atom: 2 * 1999 + 500,
      discount_atom: 449,
      total_amount_atom: 4498 - 449,
      due_amount_atom: 4049,
      // A sentence: the subscription by its prices (product name, nickname) and the period, no ids.
      description: `Subscription to Plan and Plan (Extra seat), ${lineRange(start, end)}`,
    });
    expect(invoice.lines.map((line: Json) => [line.price, line.quantity, line.amount_atom])).toEqual([
      [p1, 2, 3998],
      [p2, 1, 500],
    ]);

    const subEvents = await events(sub.id, fresh);
    expect(subEvents).toHaveLength(1);
    expect(subEvents[0]).toMatchObject({
      type: "customer.subscription.created",
      aggregate_type: "subscription",
      correlation_id: "sub-create-1",
      actor_type: "api_key",
      actor_id: fresh.secret.id,
      data: sub,
      previous_data: null,
    });
    const invoiceEvents = await events(invoice.id, fresh);
    expect(invoiceEvents.map((e) => e.type)).toEqual(["invoice.finalized", "invoice.created"]);
    for (const e of invoiceEvents) expect(e.correlation_id).toBe("sub-create-1");

    await eventually(async () => receiver.requests, (requests) => requests.length >= 1);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.signatureValid).toBe(true);
    expect(receiver.requests[0]!.body).toMatchObject({ type: "customer.subscription.created", data: { object: { id: sub.id } } });
  });

  it("creates with a trial: trialing, no invoice; trial_end or trial_period_days", async () => {
    const sub = await subscribe({ trial_period_days: 14 });
    expect(sub).toMatchObject({ status: "trialing", latest_invoice: null });
    expect(new Date(sub.trial_end).getTime() - new Date(sub.current_period_start).getTime()).toBe(14 * 86_400_000);
    expect(sub.current_period_end).toBe(sub.trial_end);
    const trialEnd = new Date(Date.now() + 3 * 86_400_000).toISOString();
    expect(await subscribe({ trial_end: trialEnd })).toMatchObject({ status: "trialing", trial_end: trialEnd, current_period_end: trialEnd });
    const invoices = (await merchant.client.get(`/${merchant.accountId}/invoices?customer=${customerId}`)).body.items;
    expect(invoices.filter((i: Json) => i.subscription === sub.id)).toHaveLength(0);
  });

  it("validates: 400 missing, 422 invalid, mixed currencies and intervals", async () => {
    const eur = await price({ currency: "eur" });
    const yearly = await price({ recurring: { interval: "year" } });
    const oneTime = (await merchant.client.post("/prices", { product, currency: "usd", unit_amount_atom: 5, type: "one_time" })).body.id;
    const archived = await price({});
    await merchant.client.post(`/prices/${archived}`, { active: false });
    const other = await newMerchant();
    const otherCustomer = (await other.client.post("/customers", { email: "o@example.com" })).body.id;
    const cases: [Json, number, string][] = [
      [{ items: [{ price: monthly }] }, 400, "customer"],
      [{ customer: customerId }, 400, "items"],
      [{ customer: customerId, items: [{}] }, 400, "items.0.price"],
      [{ customer: customerId, items: [] }, 422, "items"],
      [{ customer: otherCustomer, items: [{ price: monthly }] }, 422, "customer"],
      [{ customer: customerId, items: [{ price: "price_nope" }] }, 422, "items.0.price"],
      [{ customer: customerId, items: [{ price: oneTime }] }, 422, "items.0.price"],
      [{ customer: customerId, items: [{ price: archived }] }, 422, "items.0.price"],
      [{ customer: customerId, items: [{ price: monthly }, { price: eur }] }, 422, "items.1.price"],
      [{ customer: customerId, items: [{ price: monthly }, { price: yearly }] }, 422, "items.1.price"],
      [{ customer: customerId, items: [{ price: monthly }, { price: monthly }] }, 422, "items.1.price"],
      [{ customer: customerId, items: [{ price: monthly, quantity: 0 }] }, 422, "items.0.quantity"],
      [{ customer: customerId, items: [{ price: monthly }], trial_period_days: 0 }, 422, "trial_period_days"],
      [{ customer: customerId, items: [{ price: monthly }], trial_end: "2000-01-01T00:00:00.000Z" }, 422, "trial_end"],
      [{ customer: customerId, items: [{ price: monthly }], trial_end: new Date(Date.now() + 86_400_000).toISOString(), trial_period_days: 3 }, 422, "trial_end"],
    ];
    const before = (await merchant.client.get(`${base()}?customer=${customerId}`)).body.total;
    for (const [body, status, field] of cases) {
      const response = await merchant.client.post(base(), body);
      expect(response.status, `${JSON.stringify(body)} ${response.text}`).toBe(status);
      expect(response.body.errors.map((e: Json) => e.field), response.text).toContain(field);
    }
    expect((await merchant.client.get(`${base()}?customer=${customerId}`)).body.total).toBe(before);
  });

  it("items: list, add, change quantity, remove (not the last: 409), each with customer.subscription.updated", async () => {
    const sub = await subscribe({ trial_period_days: 5 });
    const itemsPath = `${base()}/${sub.id}/items` as const;
    expect((await merchant.client.get(itemsPath)).body).toMatchObject({ items: [{ object: "subscription_item", price: monthly, quantity: 1 }], total: 1 });

    const added = await post(itemsPath, { price: monthlyB, quantity: 3 }, "items-add");
    expect(added.status, added.text).toBe(200);
    expect(added.body.items.map((i: Json) => [i.price, i.quantity])).toEqual([[monthly, 1], [monthlyB, 3]]);
    let [event] = await events(sub.id);
    expect(event).toMatchObject({ type: "customer.subscription.updated", correlation_id: "items-add", data: added.body, previous_data: sub });

    expectProblem(await merchant.client.post(itemsPath, { price: monthlyB }), 422);
    expectProblem(await merchant.client.post(itemsPath, { price: await price({ currency: "eur" }) }), 422);
    expectProblem(await merchant.client.post(itemsPath, {}), 400);

    const itemId = added.body.items[1].id;
    const changed = await post(`${itemsPath}/${itemId}`, { quantity: 7 }, "items-qty");
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.items[1].quantity).toBe(7);
    [event] = await events(sub.id);
    expect(event).toMatchObject({ type: "customer.subscription.updated", correlation_id: "items-qty", data: changed.body, previous_data: added.body });
    expectProblem(await merchant.client.post(`${itemsPath}/si_prod_nope`, { quantity: 2 }), 404);

    const removed = await merchant.client.delete(`${itemsPath}/${itemId}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.items).toHaveLength(1);
    [event] = await events(sub.id);
    expect(event).toMatchObject({ type: "customer.subscription.updated", data: removed.body, previous_data: changed.body });
    expectProblem(await merchant.client.delete(`${itemsPath}/${removed.body.items[0].id}`), 409, /last item/);
    expect((await merchant.client.get(itemsPath)).body.total).toBe(1);
  });

  it("update, pause, resume, cancel at period end and now; invalid transitions are 409 naming the status", async () => {
    const sub = await subscribe();
    const path = `${base()}/${sub.id}` as const;
    const updated = await post(path, { metadata: { a: "1" } }, "upd");
    expect(updated.status, updated.text).toBe(200);
    expect((await events(sub.id))[0]).toMatchObject({ type: "customer.subscription.updated", data: { metadata: { a: "1" } }, previous_data: { metadata: {} } });
    expect((await post(path, { metadata: { a: "1" } })).status).toBe(200);
    expect(await events(sub.id)).toHaveLength(2);

    expectProblem(await post(`${path}/resume`), 409, /is active/);
    const paused = await post(`${path}/pause`, undefined, "pause-1");
    expect(paused.body).toMatchObject({ status: "paused", paused_at: expect.any(String) });
    expect((await events(sub.id))[0]).toMatchObject({ type: "customer.subscription.paused", correlation_id: "pause-1", data: { status: "paused" }, previous_data: { status: "active" } });
    expectProblem(await post(`${path}/pause`), 409, /is paused/);
    const resumed = await post(`${path}/resume`);
    expect(resumed.body).toMatchObject({ status: "active", paused_at: null });
    expect((await events(sub.id))[0]).toMatchObject({ type: "customer.subscription.resumed", previous_data: { status: "paused" } });

    const atEnd = await post(`${path}/cancel`, { at_period_end: true });
    expect(atEnd.body).toMatchObject({ status: "active", cancel_at_period_end: true });
    expect((await events(sub.id))[0]).toMatchObject({ type: "customer.subscription.updated", data: { cancel_at_period_end: true }, previous_data: { cancel_at_period_end: false } });

    const cancelled = await post(`${path}/cancel`, {}, "cancel-1");
    expect(cancelled.body).toMatchObject({ status: "cancelled", cancelled_at: expect.any(String), cancel_at_period_end: false });
    expect((await events(sub.id))[0]).toMatchObject({ type: "customer.subscription.cancelled", correlation_id: "cancel-1", data: cancelled.body, previous_data: atEnd.body });
    for (const action of ["pause", "resume", "cancel"]) expectProblem(await post(`${path}/${action}`), 409, /is cancelled/);
    expectProblem(await post(path, { metadata: { b: "2" } }), 409, /is cancelled/);
    expectProblem(await post(`${path}/items`, { price: monthlyB }), 409, /is cancelled/);
    expect((await merchant.client.get(path)).body).toEqual(cancelled.body);
  });

  it("lists with filters; another account's subscription is 404", async () => {
    const cus = (await merchant.client.post("/customers", { email: "list@example.com" })).body.id;
    const a = await subscribe({}, merchant, cus);
    const b = await subscribe({ trial_period_days: 1 }, merchant, cus);
    expect((await merchant.client.get(`${base()}?customer=${cus}`)).body.items.map((s: Json) => s.id)).toEqual([b.id, a.id]);
    expect((await merchant.client.get(`/subscriptions?customer=${cus}&status=trialing`)).body.items.map((s: Json) => s.id)).toEqual([b.id]);
    expectProblem(await merchant.client.get(`${base()}?status=nope`), 400);
    const other = await newMerchant();
    expectProblem(await other.client.get(`/${other.accountId}/subscriptions/${a.id}`), 404);
    expectProblem(await other.client.post(`/${other.accountId}/subscriptions/${a.id}/cancel`), 404);
    expectProblem(await other.client.get(`/${other.accountId}/subscriptions/${a.id}/items`), 404);
  });

  it("renewSubscription (in process): advances the period, produces the finalized renewal invoice and the events", async () => {
    const sub = await subscribe({ items: [{ price: monthly, quantity: 2 }, { price: monthlyB }] });
    const ctx: ServiceContext = { accountId: merchant.accountId, livemode: true, actor: { type: "system", id: null }, correlationId: "renew-1", now: () => new Date() };
    await expect(renewSubscription({ ctx, input: { id: sub.id, now: new Date() } })).rejects.toThrow(/not due/);
    const { subscription, invoice } = await renewSubscription({ ctx, input: { id: sub.id, now: new Date(sub.current_period_end) } });
    expect(subscription.subscription.currentPeriodStart.toISOString()).toBe(sub.current_period_end);
    const expected = new Date(sub.current_period_start);
    expected.setUTCMonth(expected.getUTCMonth() + 2);
    if (new Date(sub.current_period_start).getUTCDate() <= 28) {
      expect(subscription.subscription.currentPeriodEnd.toISOString()).toBe(expected.toISOString());
    }
    expect(invoice).not.toBeNull();
    expect(subscription.subscription.latestInvoiceId).toBe(invoice!.invoice.id);
    expect(invoice!.invoice).toMatchObject({ status: "open", subscriptionId: sub.id, totalAmountAtom: 2 * 1000 + 250 });
    expect(invoice!.lines.map((line) => [line.priceId, line.quantity])).toEqual([[monthly, 2], [monthlyB, 1]]);
    // The renewal bills the new period in advance: its description names it.
    expect(invoice!.invoice.description).toBe(`Subscription to Plan, ${lineRange(subscription.subscription.currentPeriodStart, subscription.subscription.currentPeriodEnd)}`);

    const fetched = (await merchant.client.get(`${base()}/${sub.id}`)).body;
    expect(fetched).toMatchObject({ current_period_start: sub.current_period_end, latest_invoice: invoice!.invoice.id });
    const [event] = await events(sub.id);
    expect(event).toMatchObject({
      type: "customer.subscription.updated",
      actor_type: "system",
      actor_id: null,
      correlation_id: "renew-1",
      data: fetched,
      previous_data: sub,
    });
    const invoiceEvents = await events(invoice!.invoice.id);
    expect(invoiceEvents.map((e) => e.type)).toEqual(["invoice.finalized", "invoice.created"]);
    // The renewal makes its invoice in the transaction that advances the period: linked from the start.
    expect(invoiceEvents[1]).toMatchObject({ correlation_id: "renew-1", data: { subscription: sub.id, status: "draft" } });
    // Without a default_payment_method nothing is collected: the invoice waits for the merchant.
    expect(invoice!.invoice).toMatchObject({ attemptCount: 0, nextPaymentAttempt: null });

    // A trial ends at renewal: → active with an invoice; cancel_at_period_end cancels without one.
    const trial = await subscribe({ trial_period_days: 3 });
    const ended = await renewSubscription({ ctx, input: { id: trial.id, now: new Date(trial.trial_end) } });
    expect(ended.subscription.subscription.status).toBe("active");
    expect(ended.invoice?.invoice.status).toBe("open");
    await post(`${base()}/${trial.id}/cancel`, { at_period_end: true });
    const last = await renewSubscription({ ctx, input: { id: trial.id, now: ended.subscription.subscription.currentPeriodEnd } });
    expect(last.invoice).toBeNull();
    expect(last.subscription.subscription.status).toBe("cancelled");
    expect((await events(trial.id))[0]).toMatchObject({ type: "customer.subscription.cancelled", previous_data: { status: "active" } });
  });
});
