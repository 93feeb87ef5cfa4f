import { beforeAll, describe, expect, it } from "vitest";
import { lineRange } from "@/lib/time";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCR = /^scr_prod_[0-9a-z]{29}$/;
const SI = /^si_prod_[0-9a-z]{29}$/;

/** The sandbox account of a new merchant, with a product and the prices every test uses. */
async function sandboxSetup() {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id as string;
  const price = async (body: Json) => {
    const response = await client.post(`/${account}/prices`, {
      product,
      currency: "usd",
      type: "recurring",
      recurring: { interval: "month" },
      ...body,
    });
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  };
  const [basic, pro, addon, extra, yearly, eur, oneTime] = await Promise.all([
    price({ unit_amount_atom: 1000 }),
    price({ unit_amount_atom: 3000 }),
    price({ unit_amount_atom: 500 }),
    price({ unit_amount_atom: 700 }),
    price({ unit_amount_atom: 9000, recurring: { interval: "year" } }),
    price({ unit_amount_atom: 1000, currency: "eur" }),
    price({ unit_amount_atom: 1000, type: "one_time", recurring: undefined }),
  ]);
  return { merchant, client, account, product, price, prices: { basic, pro, addon, extra, yearly, eur, oneTime } };
}

type Setup = Awaited<ReturnType<typeof sandboxSetup>>;
let s: Setup;

beforeAll(async () => {
  s = await sandboxSetup();
});

async function subscribe(items: Json[], extra: Json = {}, setup: Setup = s): Promise<Json> {
  const customer = (await setup.client.post(`/${setup.account}/customers`, { email: "changes@example.com" })).body.id;
  const response = await setup.client.post(`/${setup.account}/subscriptions`, { customer, items, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const requests = (sub: Json, setup: Setup = s) => `/${setup.account}/subscriptions/${sub.id}/change-requests` as const;

async function createRequest(sub: Json, steps: Json[], setup: Setup = s): Promise<Json> {
  const response = await setup.client.post(requests(sub, setup), { steps });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const apply = (sub: Json, scr: Json, body?: Json, setup: Setup = s) => setup.client.post(`${requests(sub, setup)}/${scr.id}/apply`, body);
const getRequest = async (sub: Json, scr: Json) => (await s.client.get(`${requests(sub)}/${scr.id}`)).body;
const getSub = async (sub: Json, client: Client = s.client, account = s.account) => (await client.get(`/${account}/subscriptions/${sub.id}`)).body;

/** The aggregate's events, oldest first. */
async function eventsOf(id: string, client: Client = s.client, account = s.account): Promise<Json[]> {
  const response = await client.get(`/${account}/events?aggregate_id=${id}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}
const invoicesOf = async (customer: string) => (await s.client.get(`/${s.account}/invoices?customer=${customer}&limit=100`)).body.items as Json[];
const intentsOf = async (customer: string) => (await s.client.get(`/${s.account}/payment-intents?customer=${customer}`)).body.items as Json[];
const paymentsOf = async (intent: string) => (await s.client.get(`/${s.account}/payments?payment_intent=${intent}`)).body.items as Json[];

/** The spec's arithmetic, independently: floor(Δ × remaining / length) in BigInt. */
function expectedDue(sub: Json, prorationDate: string, delta: number): number {
  const start = Date.parse(sub.current_period_start);
  const end = Date.parse(sub.current_period_end);
  const remaining = Math.min(Math.max(0, end - Date.parse(prorationDate)), end - start);
  return Number((BigInt(delta) * BigInt(remaining)) / BigInt(end - start));
}

describe("creating a change request", () => {
  it("previews the proration and the next invoice, fixed at creation on the account's clock, and changes nothing", async () => {
    const sub = await subscribe([{ price: s.prices.basic }]);
    const item = sub.items[0].id;
    const response = await s.client.post(requests(sub), {
      steps: [
        { type: "switch_price", item, price: s.prices.pro },
        { type: "add_item", price: s.prices.addon, quantity: 2 },
      ],
      metadata: { ticket: "42" },
    });
    expect(response.status, response.text).toBe(201);
    const scr = response.body;
    expect(scr).toEqual({
      id: expect.stringMatching(SCR),
      object: "subscription_change_request",
      subscription: sub.id,
      status: "open",
      steps: [
        { type: "switch_price", item, price: s.prices.pro, quantity: null, state: "pending" },
        { type: "add_item", item: null, price: s.prices.addon, quantity: 2, state: "pending" },
      ],
      amount_due_now_atom: expectedDue(sub, scr.proration_date, 3000 + 1000 - 1000),
      // The default behaviour: an increase is charged now (tests/api/proration-behavior.test.ts has the rest).
      proration_behavior: "create_prorations",
      proration_amount_atom: expectedDue(sub, scr.proration_date, 3000 + 1000 - 1000),
      proration_credit_atom: 0,
      balance_transaction: null,
      next_invoice_amount_atom: 4000,
      // No tax, no discount: the invoices' totals are the amounts (tests/api/change-request-totals.test.ts has both).
      amount_due_now_total_atom: expectedDue(sub, scr.proration_date, 3000 + 1000 - 1000),
      next_invoice_total_atom: 4000,
      currency: "usd",
      proration_date: expect.stringMatching(ISO),
      invoice: null,
      payment_collected_at: null,
      applied_steps: 0,
      applied_at: null,
      last_error: null,
      effective: "now",
      effective_at: null,
      cancellation_reason: null,
      metadata: { ticket: "42" },
      livemode: false,
      created: scr.proration_date,
      updated: scr.proration_date,
    });
    expect(scr.amount_due_now_atom).toBeGreaterThan(2990);
    expect(Date.parse(scr.proration_date)).toBeGreaterThanOrEqual(Date.parse(sub.created));

    expect(await getRequest(sub, scr)).toEqual(scr);
    expect((await s.client.get(`/subscriptions/${sub.id}/change-requests/${scr.id}`)).body).toEqual(scr);
    const list = await s.client.get(requests(sub));
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [scr], total: 1, has_more: false });
    expect((await s.client.get(`${requests(sub)}?status=applied`)).body).toEqual({ items: [], total: 0, has_more: false });
    // A plan: the subscription and its events are untouched.
    expect(await getSub(sub)).toEqual(sub);
    expect((await eventsOf(sub.id)).map((e) => e.type)).toEqual(["customer.subscription.created"]);
  });

  it("prorates at the account's clock: a sandbox test clock ten days into the period", async () => {
    const own = await sandboxSetup();
    const sub = await subscribe([{ price: own.prices.basic }], {}, own);
    const to = new Date(Date.parse(sub.current_period_start) + 10 * 86_400_000).toISOString();
    const advanced = await own.client.post(`/${own.account}/test-clock/advance`, { to });
    expect(advanced.status, advanced.text).toBe(200);
    const scr = await createRequest(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 4 }], own);
    expect(Date.parse(scr.proration_date)).toBeGreaterThanOrEqual(Date.parse(to));
    expect(scr.amount_due_now_atom).toBe(expectedDue(sub, scr.proration_date, 3000));
    expect(scr.amount_due_now_atom).toBeLessThan(3000 * (21 / 30) + 100);
    expect(scr.next_invoice_amount_atom).toBe(4000);
  });

  it("previews nothing due now for a downgrade and for a trialing subscription", async () => {
    const sub = await subscribe([{ price: s.prices.pro }, { price: s.prices.addon }]);
    const down = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: s.prices.basic }]);
    expect(down).toMatchObject({ amount_due_now_atom: 0, next_invoice_amount_atom: 1500 });
    // A net increase of several steps is charged as a whole.
    const mixed = await createRequest(sub, [
      { type: "remove_item", item: sub.items[1].id },
      { type: "set_quantity", item: sub.items[0].id, quantity: 2 },
    ]);
    expect(mixed).toMatchObject({ amount_due_now_atom: expectedDue(sub, mixed.proration_date, 6000 - 3500), next_invoice_amount_atom: 6000 });

    const trialing = await subscribe([{ price: s.prices.basic }], { trial_period_days: 7 });
    const upgrade = await createRequest(trialing, [{ type: "switch_price", item: trialing.items[0].id, price: s.prices.pro }]);
    expect(upgrade).toMatchObject({ amount_due_now_atom: 0, next_invoice_amount_atom: 3000 });
  });

  it("checks every step up front with the items' rules: 400 for a missing field, 422 naming steps.N.field, nothing created", async () => {
    const sub = await subscribe([{ price: s.prices.basic }, { price: s.prices.addon }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const archived = await s.price({ unit_amount_atom: 1200 });
    expect((await s.client.post(`/${s.account}/prices/${archived}`, { active: false })).status).toBe(200);
    const cases: [string, Json, number, string][] = [
      ["no steps", {}, 400, "steps"],
      ["empty steps", { steps: [] }, 422, "steps"],
      ["missing type", { steps: [{ item: a }] }, 400, "steps.0.type"],
      ["unknown type", { steps: [{ type: "rename_item", item: a }] }, 422, "steps.0.type"],
      ["missing item", { steps: [{ type: "switch_price", price: s.prices.pro }] }, 400, "steps.0.item"],
      ["missing quantity", { steps: [{ type: "set_quantity", item: a }] }, 400, "steps.0.quantity"],
      ["quantity 0", { steps: [{ type: "set_quantity", item: a, quantity: 0 }] }, 422, "steps.0.quantity"],
      ["unknown field", { steps: [{ type: "remove_item", item: a, price: s.prices.pro }] }, 422, "steps.0.price"],
      ["unknown item", { steps: [{ type: "remove_item", item: "si_prod_00000000000000000000000000000" }] }, 422, "steps.0.item"],
      ["unknown price", { steps: [{ type: "switch_price", item: a, price: "price_prod_nope" }] }, 422, "steps.0.price"],
      ["archived price", { steps: [{ type: "add_item", price: archived }] }, 422, "steps.0.price"],
      ["one-time price", { steps: [{ type: "switch_price", item: a, price: s.prices.oneTime }] }, 422, "steps.0.price"],
      ["other currency", { steps: [{ type: "add_item", price: s.prices.eur }] }, 422, "steps.0.price"],
      ["other interval", { steps: [{ type: "switch_price", item: a, price: s.prices.yearly }] }, 422, "steps.0.price"],
      ["same price", { steps: [{ type: "switch_price", item: a, price: s.prices.basic }] }, 422, "steps.0.price"],
      ["duplicate price", { steps: [{ type: "switch_price", item: a, price: s.prices.addon }] }, 422, "steps.0.price"],
      ["duplicate added", { steps: [{ type: "add_item", price: s.prices.addon }] }, 422, "steps.0.price"],
      ["same quantity", { steps: [{ type: "set_quantity", item: a, quantity: 1 }] }, 422, "steps.0.quantity"],
      [
        "removed by an earlier step",
        { steps: [{ type: "remove_item", item: b }, { type: "set_quantity", item: b, quantity: 3 }] },
        422,
        "steps.1.item",
      ],
      ["the last item", { steps: [{ type: "remove_item", item: a }, { type: "remove_item", item: b }] }, 422, "steps.1.item"],
      [
        "added twice",
        { steps: [{ type: "add_item", price: s.prices.pro }, { type: "add_item", price: s.prices.pro }] },
        422,
        "steps.1.price",
      ],
    ];
    for (const [name, body, status, field] of cases) {
      const response = await s.client.post(requests(sub), body);
      expectProblem(response, status);
      expect(response.body.errors, `${name}: ${response.text}`).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    expect((await s.client.get(requests(sub))).body.total).toBe(0);
    expect(await getSub(sub)).toEqual(sub);
  });

  it("allows at most 20 items at every step", async () => {
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => s.price({ unit_amount_atom: 100 + i })));
    const sub = await subscribe(many.slice(0, 19).map((price) => ({ price })));
    const ok = await createRequest(sub, [{ type: "add_item", price: many[19] }]);
    expect(ok.next_invoice_amount_atom).toBe(many.reduce((sum, _, i) => sum + 100 + i, 0));
    const tooMany = await s.client.post(requests(sub), {
      steps: [
        { type: "add_item", price: many[19] },
        { type: "add_item", price: s.prices.pro },
      ],
    });
    expectProblem(tooMany, 422, /at most 20 items/);
    expect(tooMany.body.errors).toEqual([{ field: "steps.1.price", message: expect.stringMatching(/at most 20 items/) }]);
  });

  it("404 for an unknown subscription or change request, 409 once the subscription is cancelled", async () => {
    expectProblem(await s.client.post(`/${s.account}/subscriptions/sub_prod_00000000000000000000000000000/change-requests`, { steps: [{ type: "remove_item", item: "si_x" }] }), 404);
    const sub = await subscribe([{ price: s.prices.basic }]);
    expectProblem(await s.client.get(`${requests(sub)}/scr_prod_00000000000000000000000000000`), 404);
    const other = await subscribe([{ price: s.prices.basic }]);
    const scr = await createRequest(other, [{ type: "set_quantity", item: other.items[0].id, quantity: 2 }]);
    // Another subscription's change request is not found under this one.
    expectProblem(await s.client.get(`${requests(sub)}/${scr.id}`), 404);
    expectProblem(await apply(sub, scr), 404);
    expect((await s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, {})).status).toBe(200);
    expectProblem(await s.client.post(requests(sub), { steps: [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }] }), 409, /cancelled/);
  });
});

describe("applying a change request", () => {
  it("collects the proration first, then applies each step with its own customer.subscription.updated", async () => {
    const sub = await subscribe([{ price: s.prices.basic }]);
    const item = sub.items[0].id;
    const scr = await createRequest(sub, [
      { type: "switch_price", item, price: s.prices.pro },
      { type: "add_item", price: s.prices.addon, quantity: 2 },
    ]);
    const response = await apply(sub, scr, { payment_method: "pm_sandbox_succeeds" }, s);
    expect(response.status, response.text).toBe(200);
    const applied = response.body;
    expect(applied).toEqual({
      ...scr,
      status: "applied",
      steps: [
        { type: "switch_price", item, price: s.prices.pro, quantity: null, state: "applied" },
        { type: "add_item", item: expect.stringMatching(SI), price: s.prices.addon, quantity: 2, state: "applied" },
      ],
      invoice: expect.stringMatching(/^in_prod_/),
      payment_collected_at: expect.stringMatching(ISO),
      applied_steps: 2,
      applied_at: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });
    expect(await getRequest(sub, scr)).toEqual(applied);

    // The proration invoice: one line, paid in full, linked to the subscription.
    const invoice = (await s.client.get(`/${s.account}/invoices/${applied.invoice}`)).body;
    expect(invoice).toMatchObject({
      customer: sub.customer,
      subscription: sub.id,
      status: "paid",
      total_amount_atom: scr.amount_due_now_atom,
      paid_amount_atom: scr.amount_due_now_atom,
      due_amount_atom: 0,
      // Sentences, no ids: the subscription by its prices (before the change) and the prorated range.
      description: `Subscription to Plan: proration of a change, ${lineRange(new Date(scr.proration_date), new Date(sub.current_period_end))}`,
      lines: [expect.objectContaining({ description: `Proration (${lineRange(new Date(scr.proration_date), new Date(sub.current_period_end))})`, quantity: 1, unit_amount_atom: scr.amount_due_now_atom })],
    });
    const intents = await intentsOf(sub.customer);
    expect(intents).toEqual([expect.objectContaining({ invoice: invoice.id, status: "succeeded", amount_received_atom: scr.amount_due_now_atom })]);

    // The subscription: the switched item keeps its id, the added one is new.
    const after = await getSub(sub);
    expect(after.items).toEqual([
      { id: item, price: s.prices.pro, quantity: 1 },
      { id: applied.steps[1].item, price: s.prices.addon, quantity: 2 },
    ]);
    const events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).toEqual(["customer.subscription.created", "customer.subscription.updated", "customer.subscription.updated"]);
    const [created, first, second] = events;
    expect(first.previous_data).toEqual(created.data);
    expect(first.data.items).toEqual([{ id: item, price: s.prices.pro, quantity: 1 }]);
    expect(second.previous_data).toEqual(first.data);
    expect(second.data).toEqual(after);
    // Payment first: the invoice was paid before the first item changed.
    const paid = (await eventsOf(invoice.id)).find((e) => e.type === "invoice.paid");
    expect(paid.id < first.id).toBe(true);

    expectProblem(await apply(sub, scr, { payment_method: "pm_sandbox_succeeds" }), 409, /applied/);
    expect(await intentsOf(sub.customer)).toHaveLength(1);
  });

  it("uses the subscription's default_payment_method, and needs a method only when something is due", async () => {
    const sub = await subscribe([{ price: s.prices.basic }], { default_payment_method: "pm_sandbox_succeeds" });
    const scr = await createRequest(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 3 }]);
    const response = await apply(sub, scr);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ status: "applied", invoice: expect.stringMatching(/^in_prod_/) });
    expect(await intentsOf(sub.customer)).toEqual([expect.objectContaining({ payment_method: "pm_sandbox_succeeds", status: "succeeded" })]);

    const plain = await subscribe([{ price: s.prices.pro }]);
    const upgrade = await createRequest(plain, [{ type: "set_quantity", item: plain.items[0].id, quantity: 2 }]);
    const missing = await apply(plain, upgrade);
    expectProblem(missing, 400, /payment_method/);
    expect(missing.body.errors).toEqual([{ field: "payment_method", message: expect.stringMatching(/default_payment_method/) }]);
    for (const [body, field] of [
      [{ payment_method: "pm_card_visa" }, "payment_method"],
      [{ sandbox_fail_step: 1 }, "sandbox_fail_step"],
      [{ sandbox_fail_step: -1 }, "sandbox_fail_step"],
      [{ surprise: true }, "surprise"],
    ] as const) {
      const refused = await apply(plain, upgrade, body);
      expectProblem(refused, 422);
      expect(refused.body.errors[0].field).toBe(field);
    }
    expect(await getRequest(plain, upgrade)).toEqual(upgrade);
    expect(await invoicesOf(plain.customer)).toHaveLength(1); // the subscription's first invoice only

    // A downgrade is due 0: no invoice, no method needed (its unused time is credited to the balance).
    const downgrade = await createRequest(plain, [{ type: "switch_price", item: plain.items[0].id, price: s.prices.basic }]);
    const done = await apply(plain, downgrade);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: "applied", amount_due_now_atom: 0, invoice: null, payment_collected_at: null });
    expect(await invoicesOf(plain.customer)).toHaveLength(1);
    expect((await getSub(plain)).items).toEqual([{ id: plain.items[0].id, price: s.prices.basic, quantity: 1 }]);
  });

  it("a declined payment applies nothing and keeps the request open; the next apply pays the same invoice", async () => {
    const sub = await subscribe([{ price: s.prices.basic }]);
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: s.prices.pro }]);
    const declined = await apply(sub, scr, { payment_method: "pm_sandbox_declined" });
    expectProblem(declined, 409, /declined.*Nothing was applied/);
    expect(declined.body).toMatchObject({ change_request_id: scr.id, invoice_id: expect.stringMatching(/^in_prod_/) });
    const open = await getRequest(sub, scr);
    expect(open).toMatchObject({ status: "open", invoice: declined.body.invoice_id, payment_collected_at: null, applied_steps: 0, last_error: expect.stringMatching(/declined/) });
    expect(await getSub(sub)).toEqual(sub);
    expect((await eventsOf(sub.id)).map((e) => e.type)).toEqual(["customer.subscription.created"]);

    const paid = await apply(sub, scr, { payment_method: "pm_sandbox_succeeds" });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "applied", invoice: declined.body.invoice_id, last_error: null });
    const prorations = (await invoicesOf(sub.customer)).filter((invoice) => invoice.id !== sub.latest_invoice);
    expect(prorations).toEqual([expect.objectContaining({ id: declined.body.invoice_id, status: "paid" })]);
    const intents = await intentsOf(sub.customer);
    expect(intents.map((intent) => intent.status).sort()).toEqual(["requires_payment_method", "succeeded"]);
  });

  it("PARTIAL_APPLY_RETRYABLE: a step failing after the payment answers 409 with a stringified detail; the retry resumes and never charges again", async () => {
    const sub = await subscribe([{ price: s.prices.basic }, { price: s.prices.addon }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const scr = await createRequest(sub, [
      { type: "switch_price", item: a, price: s.prices.pro },
      { type: "set_quantity", item: b, quantity: 3 },
      { type: "add_item", price: s.prices.extra },
    ]);
    expect(scr.amount_due_now_atom).toBeGreaterThan(0);

    const failed = await apply(sub, scr, { payment_method: "pm_sandbox_succeeds", sandbox_fail_step: 1 });
    expectProblem(failed, 409);
    expect(failed.body).toMatchObject({
      title: "Partial Apply Retryable",
      error_code: "PARTIAL_APPLY_RETRYABLE",
      retryable: true,
      subscription_id: sub.id,
      change_request_id: scr.id,
    });
    expect(typeof failed.body.detail).toBe("string");
    const detail = JSON.parse(failed.body.detail);
    expect(detail).toEqual({
      change_request_id: scr.id,
      subscription_id: sub.id,
      applied_steps: 1,
      failed_step: 1,
      payment_collected: true,
      invoice_id: expect.stringMatching(/^in_prod_/),
      message: expect.stringMatching(/sandbox_fail_step.*resume from step 1/),
    });
    const partial = await getRequest(sub, scr);
    expect(partial).toMatchObject({
      status: "partially_applied",
      applied_steps: 1,
      invoice: detail.invoice_id,
      payment_collected_at: expect.stringMatching(ISO),
      last_error: expect.stringMatching(/^steps\.1: /),
      steps: [{ state: "applied" }, { state: "pending" }, { state: "pending" }],
    });
    expect((await getSub(sub)).items).toEqual([
      { id: a, price: s.prices.pro, quantity: 1 },
      { id: b, price: s.prices.addon, quantity: 1 },
    ]);
    // Once the payment was collected the request cannot be canceled: it must be finished.
    expectProblem(await s.client.post(`${requests(sub)}/${scr.id}/cancel`, {}), 409, /apply it again/);

    // The retry needs no payment method (the subscription has none): nothing is collected again.
    const retried = await apply(sub, scr);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({
      status: "applied",
      applied_steps: 3,
      invoice: detail.invoice_id,
      payment_collected_at: partial.payment_collected_at,
      last_error: null,
    });
    const after = await getSub(sub);
    expect(after.items).toEqual([
      { id: a, price: s.prices.pro, quantity: 1 },
      { id: b, price: s.prices.addon, quantity: 3 },
      { id: retried.body.steps[2].item, price: s.prices.extra, quantity: 1 },
    ]);

    // Exactly one proration invoice, one payment intent, one payment.
    const prorations = (await invoicesOf(sub.customer)).filter((invoice) => invoice.id !== sub.latest_invoice);
    expect(prorations).toEqual([expect.objectContaining({ id: detail.invoice_id, status: "paid", total_amount_atom: scr.amount_due_now_atom })]);
    const intents = await intentsOf(sub.customer);
    expect(intents).toEqual([expect.objectContaining({ invoice: detail.invoice_id, status: "succeeded" })]);
    expect(await paymentsOf(intents[0].id)).toEqual([expect.objectContaining({ status: "succeeded", amount_atom: scr.amount_due_now_atom })]);
    const paidEvents = (await eventsOf(detail.invoice_id)).filter((e) => e.type === "invoice.paid");
    expect(paidEvents).toHaveLength(1);

    // Each step's customer.subscription.updated exactly once, chained before → after.
    const events = await eventsOf(sub.id);
    expect(events.map((e) => e.type)).toEqual([
      "customer.subscription.created",
      "customer.subscription.updated",
      "customer.subscription.updated",
      "customer.subscription.updated",
    ]);
    for (let i = 1; i < events.length; i++) expect(events[i].previous_data).toEqual(events[i - 1].data);
    expect(events[3].data).toEqual(after);
  });

  it("two concurrent applies of one request charge once and apply each step once", async () => {
    const sub = await subscribe([{ price: s.prices.basic }, { price: s.prices.addon }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const scr = await createRequest(sub, [
      { type: "switch_price", item: a, price: s.prices.pro },
      { type: "remove_item", item: b },
      { type: "add_item", price: s.prices.extra, quantity: 2 },
    ]);
    const answers = await Promise.all([1, 2, 3].map(() => apply(sub, scr, { payment_method: "pm_sandbox_succeeds" })));
    // Whoever loses a race answers a 409 (e.g. invoice_locked) having changed nothing of its own.
    for (const answer of answers) expect([200, 409], answer.text).toContain(answer.status);
    const final = await getRequest(sub, scr);
    if (final.status !== "applied") expect((await apply(sub, scr)).status).toBe(200);
    const done = await getRequest(sub, scr);
    expect(done).toMatchObject({ status: "applied", applied_steps: 3 });

    const succeeded = (await intentsOf(sub.customer)).filter((intent) => intent.status === "succeeded");
    expect(succeeded).toEqual([expect.objectContaining({ invoice: done.invoice, amount_received_atom: scr.amount_due_now_atom })]);
    const paid = (await invoicesOf(sub.customer)).filter((invoice) => invoice.status === "paid");
    expect(paid.map((invoice) => invoice.id)).toEqual([done.invoice]);
    const updates = (await eventsOf(sub.id)).filter((e) => e.type === "customer.subscription.updated");
    expect(updates).toHaveLength(3);
    expect((await getSub(sub)).items).toEqual([
      { id: a, price: s.prices.pro, quantity: 1 },
      { id: done.steps[2].item, price: s.prices.extra, quantity: 2 },
    ]);
  });

  it("refuses, charging nothing, a plan the subscription moved away from (archived price, changed items)", async () => {
    const sub = await subscribe([{ price: s.prices.basic }]);
    const gone = await s.price({ unit_amount_atom: 5000 });
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: gone }]);
    expect((await s.client.post(`/${s.account}/prices/${gone}`, { active: false })).status).toBe(200);
    const archived = await apply(sub, scr, { payment_method: "pm_sandbox_succeeds" });
    expectProblem(archived, 409, /no longer applies.*steps\.0\.price.*archived/);
    expect(archived.body.errors).toEqual([{ field: "steps.0.price", message: expect.stringMatching(/archived/) }]);

    const other = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: s.prices.pro }]);
    expect((await s.client.post(`/${s.account}/subscriptions/${sub.id}/items/${sub.items[0].id}`, { quantity: 2 })).status).toBe(200);
    expectProblem(await apply(sub, other, { payment_method: "pm_sandbox_succeeds" }), 409, /changed after/);

    expect(await invoicesOf(sub.customer)).toHaveLength(1);
    expect(await intentsOf(sub.customer)).toEqual([]);
    expect((await getRequest(sub, scr)).status).toBe("open");
  });

  it("a live account cannot collect (422 on payment_method) but applies what is due 0", async () => {
    const live = s.merchant.client;
    const account = s.merchant.accountId;
    const product = (await live.post("/products", { name: "Live plan" })).body.id;
    const mk = async (amount: number) =>
      (await live.post("/prices", { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } })).body.id;
    const [cheap, dear] = [await mk(1000), await mk(2000)];
    const customer = (await live.post("/customers", { email: "live@example.com" })).body.id;
    const sub = (await live.post("/subscriptions", { customer, items: [{ price: dear }] })).body;
    const base = `/${account}/subscriptions/${sub.id}/change-requests` as const;
    const up = (await live.post(base, { steps: [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }] })).body;
    const refused = await live.post(`${base}/${up.id}/apply`, { payment_method: "pm_sandbox_succeeds" });
    expectProblem(refused, 422);
    expect(refused.body.errors[0].field).toBe("payment_method");
    const injected = await live.post(`${base}/${up.id}/apply`, { sandbox_fail_step: 0 });
    expectProblem(injected, 422);
    expect(injected.body.errors[0].field).toBe("sandbox_fail_step");

    const down = (await live.post(base, { steps: [{ type: "switch_price", item: sub.items[0].id, price: cheap }] })).body;
    expect(down.livemode).toBe(true);
    const applied = await live.post(`/subscriptions/${sub.id}/change-requests/${down.id}/apply`);
    expect(applied.status, applied.text).toBe(200);
    expect((await live.get(`/subscriptions/${sub.id}`)).body.items).toEqual([{ id: sub.items[0].id, price: cheap, quantity: 1 }]);
    // The first request was previewed on the old items: it no longer applies.
    expectProblem(await live.post(`${base}/${up.id}/apply`, {}), 409, /changed after/);
  });
});

describe("canceling a change request", () => {
  it("open → canceled (voiding a proration invoice left open by a declined payment); then apply and cancel are 409", async () => {
    const sub = await subscribe([{ price: s.prices.basic }]);
    const plain = await createRequest(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }]);
    const canceled = await s.client.post(`${requests(sub)}/${plain.id}/cancel`, {});
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toEqual({ ...plain, status: "canceled", cancellation_reason: "requested", updated: expect.stringMatching(ISO) });
    expectProblem(await apply(sub, plain, { payment_method: "pm_sandbox_succeeds" }), 409, /canceled/);
    expectProblem(await s.client.post(`${requests(sub)}/${plain.id}/cancel`, {}), 409, /canceled/);

    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: s.prices.pro }]);
    const declined = await apply(sub, scr, { payment_method: "pm_sandbox_declined" });
    expectProblem(declined, 409);
    const response = await s.client.post(`${requests(sub)}/${scr.id}/cancel`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ status: "canceled", invoice: declined.body.invoice_id });
    expect((await s.client.get(`/${s.account}/invoices/${declined.body.invoice_id}`)).body.status).toBe("void");
    expect(await getSub(sub)).toEqual(sub);
    expect((await s.client.get(`${requests(sub)}?status=canceled`)).body.total).toBe(2);

    const applied = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: s.prices.addon }]);
    expect((await apply(sub, applied)).status).toBe(200);
    expectProblem(await s.client.post(`${requests(sub)}/${applied.id}/cancel`, {}), 409, /applied/);
  });
});
