import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { customerBalanceTransactions, events, invoiceLines, invoices, paymentIntents, subscriptionChangeRequests } from "@/db/schema";
import { api, type Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * `POST /invoices/preview` (docs/rules/invoices.md, "Invoice previews"): the next invoice of a
 * subscription as it would be finalized, stored nowhere, and equal to what the renewal (and a
 * change's proration invoice) then really finalize on the sandbox test clock.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.floor(ms / 1000);

/** Every test has its own sandbox account: the test clock moves a whole account. */
async function sandbox() {
  const { merchant, client, account, ok } = await newSandbox();
  const product = (await ok(client.post(`/${account}/products`, { name: "Plan" }))).id as string;
  const price = async (amount: number) =>
    (await ok(client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } }))).id as string;
  const vat = (await ok(client.post(`/${account}/tax-rates`, { display_name: "VAT", percentage: 10, inclusive: false }))).id as string;
  const coupon = (await ok(client.post(`/${account}/coupons`, { percent_off: 20, duration: "forever" }))).id as string;
  const customer = async () => (await ok(client.post(`/${account}/customers`, { email: "preview@example.com", default_tax_rate: vat }))).id as string;
  const subscribe = async (customerId: string, items: Json[]) =>
    ok(client.post(`/${account}/subscriptions`, { customer: customerId, items, default_payment_method: "pm_sandbox_succeeds" }));
  const credit = (customerId: string, amount: number) =>
    ok(client.post(`/${account}/customers/${customerId}/balance-transactions`, { amount_atom: amount, currency: "usd", description: "Goodwill" }));
  const discount = (customerId: string) => ok(client.post(`/${account}/customers/${customerId}/discount`, { coupon }));
  const preview = (body: Json) => client.post(`/${account}/invoices/preview`, body);
  const advance = (to: number) => ok(client.post(`/${account}/test-clock/advance`, { to: iso(to) }));
  const clockNow = async () => Date.parse((await ok(client.get(`/${account}/test-clock`))).now);
  const invoice = (id: string) => ok(client.get(`/${account}/invoices/${id}`));
  const timeline = async (id: string): Promise<Json[]> => [...(await ok(client.get(`/${account}/events?aggregate_id=${id}&limit=100`))).items].reverse();
  /** The rows a preview must not write, in this account. */
  const rows = async () => {
    const db = await getDb();
    const tables = [invoices, invoiceLines, events, customerBalanceTransactions, paymentIntents, subscriptionChangeRequests] as const;
    return Promise.all(tables.map(async (table) => (await db.select({ n: count() }).from(table).where(eq(table.accountId, account)))[0]!.n));
  };
  return { merchant, client, account, ok, price, vat, customer, subscribe, credit, discount, preview, advance, clockNow, invoice, timeline, rows };
}

/** What a preview and the invoice finalized from it must agree on. */
function money(invoice: Json, dueAtFinalization = invoice.due_amount_atom) {
  return {
    subscription: invoice.subscription,
    currency: invoice.currency,
    subtotal_atom: invoice.subtotal_atom,
    discount_atom: invoice.discount_atom,
    discount: invoice.discount,
    tax_atom: invoice.tax_atom,
    total_taxes: invoice.total_taxes,
    total_amount_atom: invoice.total_amount_atom,
    starting_balance_atom: invoice.starting_balance_atom,
    ending_balance_atom: invoice.ending_balance_atom,
    due_amount_atom: dueAtFinalization,
    lines: invoice.lines.map((line: Json) => ({
      price: line.price,
      quantity: line.quantity,
      unit_amount_atom: line.unit_amount_atom,
      amount_atom: line.amount_atom,
      tax_rates: line.tax_rates,
      discount_atom: line.discount_atom,
      tax_amounts: line.tax_amounts,
    })),
  };
}

/** The amount due when it was finalized (a renewal collected at once is paid, due 0, by now). */
async function dueWhenFinalized(s: Awaited<ReturnType<typeof sandbox>>, invoiceId: string): Promise<number> {
  const finalized = (await s.timeline(invoiceId)).find((event) => event.type === "invoice.finalized")!;
  return finalized.data.due_amount_atom;
}

describe("previewing the next invoice", () => {
  it("shows the renewal exactly as it is then finalized (pending change, metered usage, discount, tax, balance credit), storing nothing", async () => {
    const s = await sandbox();
    const meter = await s.ok(s.client.post(`/${s.account}/meters`, { event_name: "calls", display_name: "Calls", aggregation: "sum" }));
    const metered = (await s.ok(
      s.client.post(`/${s.account}/prices`, { product: (await s.ok(s.client.post(`/${s.account}/products`, { name: "API" }))).id, currency: "usd", unit_amount_atom: 5, type: "recurring", recurring: { interval: "month", usage_type: "metered", meter: meter.id } }),
    )).id as string;
    const pro = await s.price(3000);
    const customer = await s.customer();
    const sub = await s.subscribe(customer, [{ price: pro }, { price: metered }]);
    const start = Date.parse(sub.current_period_start);
    const end = Date.parse(sub.current_period_end);
    // After the first invoice: a credit of 1000, the 20 % discount, and a change scheduled for the period end.
    await s.credit(customer, 1000);
    await s.discount(customer);
    const scr = await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests`, { steps: [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }], effective: "period_end" }));
    await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests/${scr.id}/apply`, {}));
    await s.advance(start + 2 * HOUR);
    for (const [identifier, value] of [["a", 30], ["b", 12]] as const) {
      await s.ok(s.client.post(`/${s.account}/usage-events`, { event_name: "calls", customer, identifier, timestamp: seconds(start + HOUR), payload: { value } }));
    }

    const before = await s.rows();
    const response = await s.preview({ customer, subscription: sub.id });
    expect(response.status, response.text).toBe(200);
    const preview = response.body;
    expect(await s.rows()).toEqual(before);
    expect(await s.preview({ customer, subscription: sub.id })).toMatchObject({ status: 200, body: preview });

    // 2 × 3000 (the pending change applied first) + 42 calls × 5 = 6210; −20 % = 4968; +10 % VAT, per line (4800 → 480, 168 → 16.8 → 17) = 5465.
    expect(preview).toMatchObject({
      id: null,
      object: "invoice",
      status: "draft",
      number: null,
      customer,
      subscription: sub.id,
      subtotal_atom: 6210,
      discount_atom: 1242,
      tax_atom: 497,
      total_amount_atom: 5465,
      starting_balance_atom: 1000,
      ending_balance_atom: 0,
      due_amount_atom: 4465,
      period_start: sub.current_period_end,
      proration_date: null,
      proration_invoice: null,
      // Metered: the renewal waits for the usage grace (1 h), then collects with the default method.
      next_payment_attempt: iso(end + HOUR),
    });
    expect(Date.parse(preview.period_end)).toBeGreaterThan(end + 27 * DAY);
    expect(preview.lines.map((line: Json) => [line.id, line.price, line.quantity, line.amount_atom, line.proration])).toEqual([
      [null, pro, 2, 6000, false],
      [null, metered, 42, 210, false],
    ]);
    // Nothing about the subscription moved either.
    expect((await s.ok(s.client.get(`/${s.account}/subscriptions/${sub.id}`))).pending_changes).toHaveLength(1);

    await s.advance(end + 2 * HOUR);
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${sub.id}`));
    expect(renewed.current_period_start).toBe(sub.current_period_end);
    const finalized = await s.invoice(renewed.latest_invoice);
    expect(finalized.status).toBe("paid");
    expect(money(preview)).toEqual(money(finalized, await dueWhenFinalized(s, finalized.id)));
    // invoice.upcoming announced the same invoice, balance applied, on the id the renewal then used.
    const [announced] = await s.timeline(finalized.id);
    expect(announced).toMatchObject({ type: "invoice.upcoming" });
    expect(money(announced!.data)).toEqual(money(preview));
  });

  it("with changes: the proration invoice applying them collects and the renewal after them, as then finalized, storing nothing", async () => {
    const s = await sandbox();
    // Small prices: a second of clock between the preview and the change request moves the proration by far less than an atom.
    const basic = await s.price(100);
    const pro = await s.price(400);
    const customer = await s.customer();
    const sub = await s.subscribe(customer, [{ price: basic }]);
    const start = Date.parse(sub.current_period_start);
    const end = Date.parse(sub.current_period_end);
    await s.credit(customer, 150);
    await s.discount(customer);
    await s.advance(start + 10 * DAY);

    const steps = [{ type: "switch_price", item: sub.items[0].id, price: pro }];
    // The change request fixes its proration_date; the preview is asked for that same instant.
    const scr = await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests`, { steps, effective: "now" }));
    const before = await s.rows();
    const response = await s.preview({ customer, subscription: sub.id, changes: { steps, effective: "now" }, proration_date: scr.proration_date });
    expect(response.status, response.text).toBe(200);
    expect(await s.rows()).toEqual(before);
    const preview = response.body;
    const proration = preview.proration_invoice;
    expect(scr.amount_due_now_atom).toBeGreaterThan(0);
    expect(proration).toMatchObject({ id: null, status: "draft", subscription: sub.id, period_start: scr.proration_date, period_end: sub.current_period_end, starting_balance_atom: 150 });
    expect(proration.lines).toEqual([expect.objectContaining({ id: null, price: null, quantity: 1, amount_atom: scr.amount_due_now_atom, proration: true })]);
    expect(preview).toMatchObject({ proration_date: scr.proration_date, subtotal_atom: 400, starting_balance_atom: proration.ending_balance_atom });
    expect(preview.lines.map((line: Json) => [line.price, line.amount_atom, line.proration])).toEqual([[pro, 400, false]]);

    // Applying it: the proration invoice is exactly the previewed one.
    const applied = await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests/${scr.id}/apply`, {}));
    const prorated = await s.invoice(applied.invoice);
    expect(prorated.status).toBe("paid");
    expect(money(prorated, await dueWhenFinalized(s, prorated.id))).toEqual(money(proration));

    // And the renewal after it.
    await s.advance(end + MINUTE);
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${sub.id}`));
    const finalized = await s.invoice(renewed.latest_invoice);
    expect(money(preview)).toEqual(money(finalized, await dueWhenFinalized(s, finalized.id)));
  });

  it("with a downgrade now: the unused time credited to the balance, then taken by the renewal, as then finalized; none credits nothing", async () => {
    const s = await sandbox();
    const basic = await s.price(100);
    const pro = await s.price(400);
    const customer = await s.customer();
    const sub = await s.subscribe(customer, [{ price: pro }]);
    const start = Date.parse(sub.current_period_start);
    const end = Date.parse(sub.current_period_end);
    await s.advance(start + 10 * DAY);

    const steps = [{ type: "switch_price", item: sub.items[0].id, price: basic }];
    const scr = await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests`, { steps, effective: "now", proration_behavior: "create_prorations" }));
    expect(scr.proration_credit_atom).toBeGreaterThan(0);
    const before = await s.rows();
    const asked = { customer, subscription: sub.id, proration_date: scr.proration_date };
    const response = await s.preview({ ...asked, changes: { steps, effective: "now", proration_behavior: "create_prorations" } });
    expect(response.status, response.text).toBe(200);
    const none = await s.preview({ ...asked, changes: { steps, effective: "now", proration_behavior: "none" } });
    expect(none.status, none.text).toBe(200);
    expect(await s.rows()).toEqual(before);
    const preview = response.body;
    expect(preview).toMatchObject({ proration_invoice: null, proration_credit_atom: scr.proration_credit_atom, starting_balance_atom: scr.proration_credit_atom, subtotal_atom: 100 });
    expect(none.body).toMatchObject({ proration_invoice: null, proration_credit_atom: 0, starting_balance_atom: 0 });

    await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests/${scr.id}/apply`, {}));
    await s.advance(end + MINUTE);
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${sub.id}`));
    const finalized = await s.invoice(renewed.latest_invoice);
    expect(money(preview)).toEqual(money(finalized, await dueWhenFinalized(s, finalized.id)));
  });

  it("previews a change at the period end without proration, and the customer's only subscription when none is named", async () => {
    const s = await sandbox();
    const [basic, pro] = [await s.price(1000), await s.price(3000)];
    const customer = await s.customer();
    const sub = await s.subscribe(customer, [{ price: pro }]);
    const later = await s.ok(s.preview({ customer, changes: { steps: [{ type: "switch_price", item: sub.items[0].id, price: basic }], effective: "period_end" } }));
    expect(later).toMatchObject({ subscription: sub.id, proration_invoice: null, subtotal_atom: 1000, starting_balance_atom: 0, due_amount_atom: later.total_amount_atom });
    // With an Idempotency-Key it runs inside the request's transaction: the same answer.
    const keyed = await s.client.post(`/${s.account}/invoices/preview`, { customer, subscription: sub.id }, { headers: { "Idempotency-Key": "preview-once" } });
    expect(keyed.status, keyed.text).toBe(200);
    expect(keyed.body).toEqual(await s.ok(s.preview({ customer, subscription: sub.id })));
    // A downgrade now is due 0 (no credit): no proration invoice either; the renewal bills the new price.
    const t0 = await s.clockNow();
    const now = await s.ok(s.preview({ customer, subscription: sub.id, changes: { steps: [{ type: "switch_price", item: sub.items[0].id, price: basic }], effective: "now" } }));
    expect(now).toMatchObject({ proration_invoice: null, subtotal_atom: 1000 });
    // proration_date defaults to the account's clock.
    expect(Date.parse(now.proration_date)).toBeGreaterThanOrEqual(t0);
    expect(Date.parse(now.proration_date)).toBeLessThanOrEqual(await s.clockNow());
  });

  it("answers 4xx for what a client can get wrong, and only to secret tokens", async () => {
    const s = await sandbox();
    const price = await s.price(1000);
    const [alice, bob, carol] = [await s.customer(), await s.customer(), await s.customer()];
    const sub = await s.subscribe(alice, [{ price }]);
    const item = sub.items[0].id;
    expectProblem(await s.preview({ customer: "cus_prod_nope" }), 404, /No such customer/);
    expectProblem(await s.preview({ customer: alice, subscription: "sub_prod_nope" }), 404, /No such subscription/);
    expectProblem(await s.preview({ customer: bob, subscription: sub.id }), 422, /another customer/);
    expectProblem(await s.preview({ customer: bob }), 422, /no subscription that is not cancelled/);
    await s.subscribe(carol, [{ price }]);
    await s.subscribe(carol, [{ price }]);
    expectProblem(await s.preview({ customer: carol }), 422, /2 subscriptions/);
    expectProblem(await s.preview({ subscription: sub.id }), 400, /customer/);

    const bad = (changes: Json, extra: Json = {}) => s.preview({ customer: alice, subscription: sub.id, changes, ...extra });
    const missing = await bad({ steps: [{ type: "set_quantity", quantity: 2 }] });
    expectProblem(missing, 400);
    expect(missing.body.errors[0].field).toBe("changes.steps.0.item");
    const unknown = await bad({ steps: [{ type: "remove_item", item: "si_prod_nope" }] });
    expectProblem(unknown, 422);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: "changes.steps.0.item" })]);
    const same = await bad({ steps: [{ type: "set_quantity", item, quantity: 1 }] });
    expectProblem(same, 422, /already has quantity 1/);
    expect(same.body.errors[0].field).toBe("changes.steps.0.quantity");
    expectProblem(await bad({ steps: [] }), 422);
    expectProblem(await bad({ steps: [{ type: "set_quantity", item, quantity: 2 }] }, { proration_date: iso(Date.parse(sub.current_period_end) + DAY) }), 422, /within the current period/);
    expectProblem(await s.preview({ customer: alice, subscription: sub.id, proration_date: sub.current_period_start }), 422, /Only with changes/);

    // Publishable tokens may not preview (secret only); live tokens see only their own account's objects.
    expectProblem(await api(s.merchant.publishable.token).post("/invoices/preview", { customer: alice }), 403);
    expectProblem(await s.merchant.client.post("/invoices/preview", { customer: alice }), 404, /No such customer/);

    // A subscription whose renewal bills nothing.
    expect((await s.client.post(`/${s.account}/subscriptions/${sub.id}`, { cancel_at_period_end: true })).status).toBe(200);
    expectProblem(await s.preview({ customer: alice, subscription: sub.id }), 409, /ends at the period end/);
    expect((await s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, {})).status).toBe(200);
    expectProblem(await s.preview({ customer: alice, subscription: sub.id }), 409, /is cancelled/);
  });
});
