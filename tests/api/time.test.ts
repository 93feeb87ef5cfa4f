import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";

const DAY = 86_400_000;

let merchant: Merchant;
let sandbox: Client;
let account: string;
let product: string;
let monthly: string;

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  product = (await sandbox.post(`/${account}/products`, { name: "Plan" })).body.id;
  monthly = await newPrice(1000);
});

async function newPrice(amount: number, recurring: Json = { interval: "month" }): Promise<string> {
  const response = await sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

async function newCustomer(): Promise<string> {
  const response = await sandbox.post(`/${account}/customers`, { email: `time-${Math.random()}@example.com` });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

async function subscribe(body: Json): Promise<Json> {
  const response = await sandbox.post(`/${account}/subscriptions`, body);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** The account's clock now (the sandbox account's clock runs ahead of real time after an advance). */
async function clockNow(): Promise<Date> {
  const response = await sandbox.get(`/${account}/test-clock`);
  expect(response.status, response.text).toBe(200);
  return new Date(response.body.now);
}

async function advance(to: Date, correlationId?: string): Promise<Json> {
  const response = await sandbox.post(
    `/${account}/test-clock/advance`,
    { to: to.toISOString() },
    { headers: correlationId ? { "X-Correlation-Id": correlationId } : {} },
  );
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** An entity's events, oldest first. */
async function timeline(aggregateId: string): Promise<Json[]> {
  const response = await sandbox.get(`/${account}/events?aggregate_id=${aggregateId}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}

/** Calendar months in UTC, the day clamped to the month's last day (an independent reckoning). */
function addMonths(start: Date, months: number): Date {
  const total = start.getUTCFullYear() * 12 + start.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(start.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()));
}

const iso = (date: Date) => date.toISOString();

describe("test clock: a year of a subscription in one call", () => {
  it("trial_will_end, invoice.upcoming on the id each renewal invoice then carries, 12 renewals collected, at calendar month boundaries", async () => {
    const customer = await newCustomer();
    const coupon = await sandbox.post(`/${account}/coupons`, { percent_off: 10, duration: "forever" });
    expect(coupon.status, coupon.text).toBe(201);
    expect((await sandbox.post(`/${account}/customers/${customer}/discount`, { coupon: coupon.body.id })).status).toBeLessThan(300);
    const sub = await subscribe({ customer, items: [{ price: monthly }], trial_period_days: 14, default_payment_method: "pm_sandbox_succeeds" });
    expect(sub).toMatchObject({ status: "trialing", default_payment_method: "pm_sandbox_succeeds", latest_invoice: null });
    const trialEnd = new Date(sub.trial_end);
    const boundaries = Array.from({ length: 13 }, (_, k) => addMonths(trialEnd, k));

    const start = await clockNow();
    const to = new Date(start.getTime() + 365 * DAY);
    const clock = await advance(to, "a-year");
    expect(clock).toMatchObject({ object: "test_clock", account, transitions_run: 1 + 12 + 12 });
    expect(new Date(clock.now).getTime()).toBeGreaterThanOrEqual(to.getTime());
    // Next: the 13th renewal's announcement, beyond the year.
    expect(clock.next_due).toBe(iso(new Date(boundaries[12]!.getTime() - 3 * DAY)));

    const subEvents = await timeline(sub.id);
    expect(subEvents.map((e) => e.type)).toEqual([
      "customer.subscription.created",
      "customer.subscription.trial_will_end",
      ...Array(12).fill("customer.subscription.updated"),
    ]);
    expect(subEvents[1]).toMatchObject({
      created: iso(new Date(trialEnd.getTime() - 3 * DAY)),
      actor_type: "system",
      actor_id: null,
      correlation_id: "a-year",
      data: { id: sub.id, status: "trialing" },
      previous_data: null,
    });
    const renewals = subEvents.slice(2);
    expect(renewals[0]).toMatchObject({ previous_data: { status: "trialing" }, data: { status: "active" } });
    renewals.forEach((event, k) => {
      expect(event.created).toBe(iso(boundaries[k]!));
      expect(event.data).toMatchObject({ status: "active", current_period_start: iso(boundaries[k]!), current_period_end: iso(boundaries[k + 1]!) });
      expect(event.previous_data.current_period_end).toBe(iso(boundaries[k]!));
    });

    const listed = await sandbox.get(`/${account}/invoices?customer=${customer}&limit=100`);
    const invoices: Json[] = [...listed.body.items].reverse();
    expect(invoices).toHaveLength(12);
    for (const [k, invoice] of invoices.entries()) {
      expect(invoice).toMatchObject({
        subscription: sub.id,
        status: "paid",
        subtotal_atom: 1000,
        discount_atom: 100,
        total_amount_atom: 900,
        paid_amount_atom: 900,
        due_amount_atom: 0,
        attempt_count: 1,
        next_payment_attempt: null,
        created: iso(boundaries[k]!),
        paid_at: iso(boundaries[k]!),
      });
      expect(renewals[k]!.data.latest_invoice).toBe(invoice.id);
      const events = await timeline(invoice.id);
      expect(events.map((e) => e.type)).toEqual(["invoice.upcoming", "invoice.created", "invoice.finalized", "invoice.paid", "invoice.payment_succeeded"]);
      const [upcoming, ...rest] = events;
      expect(upcoming.created).toBe(iso(new Date(boundaries[k]!.getTime() - 3 * DAY)));
      expect(upcoming).toMatchObject({
        aggregate_type: "invoice",
        previous_data: null,
        data: {
          id: invoice.id,
          object: "invoice",
          status: "draft",
          subscription: sub.id,
          customer,
          subtotal_atom: 1000,
          discount_atom: 100,
          total_amount_atom: 900,
          lines: [{ price: monthly, quantity: 1, amount_atom: 1000 }],
        },
      });
      for (const event of rest) expect(event.created).toBe(iso(boundaries[k]!));
    }

    const after = (await sandbox.get(`/${account}/subscriptions/${sub.id}`)).body;
    expect(after).toMatchObject({
      status: "active",
      current_period_start: iso(boundaries[11]!),
      current_period_end: iso(boundaries[12]!),
      latest_invoice: invoices[11].id,
    });
    // Every intent was created and succeeded by the clock, with the subscription's method.
    const intents = (await sandbox.get(`/${account}/payment-intents?limit=100`)).body.items.filter((pi: Json) => pi.customer === customer);
    expect(intents).toHaveLength(12);
    for (const intent of intents) expect(intent).toMatchObject({ status: "succeeded", amount_atom: 900 });
  });
});

describe("test clock: transitions_run counts what the advance ran", () => {
  it("two subscriptions, one metered: exactly to the period end, then past the usage grace", async () => {
    const fresh = await newMerchant();
    const client = api(fresh.sandboxSecret.token);
    const accountId = fresh.sandboxAccountId;
    const ok = async (response: Promise<{ status: number; body: Json; text: string }>) => {
      const settled = await response;
      expect([200, 201], settled.text).toContain(settled.status);
      return settled.body;
    };
    const productId = (await ok(client.post(`/${accountId}/products`, { name: "Plan" }))).id;
    const meter = await ok(client.post(`/${accountId}/meters`, { event_name: "calls", display_name: "Calls", aggregation: "sum" }));
    const seat = (await ok(client.post(`/${accountId}/prices`, { product: productId, currency: "usd", unit_amount_atom: 700, type: "recurring", recurring: { interval: "month" } }))).id;
    const metered = (await ok(client.post(`/${accountId}/prices`, {
      product: productId,
      currency: "usd",
      unit_amount_atom: 2,
      type: "recurring",
      recurring: { interval: "month", usage_type: "metered", meter: meter.id },
    }))).id;
    const grace = (await ok(client.get(`/${accountId}/account-settings`))).usage_grace_seconds * 1000;
    const subscribe = async (items: Json[]) => {
      const customer = (await ok(client.post(`/${accountId}/customers`, { email: `count-${Math.random()}@example.com` }))).id;
      return ok(client.post(`/${accountId}/subscriptions`, { customer, items, default_payment_method: "pm_sandbox_succeeds" }));
    };
    const licensed = await subscribe([{ price: seat }]);
    const usage = await subscribe([{ price: seat }, { price: metered }]);
    const end = new Date(usage.current_period_end);
    /** The transitions the system made (its events), oldest first. */
    const systemEvents = async () =>
      ((await ok(client.get(`/${accountId}/events?limit=100`))).items as Json[]).filter((event) => event.actor_type === "system").reverse();
    const transitions = (events: Json[]) =>
      events.filter((event) => ["invoice.upcoming", "customer.subscription.updated"].includes(event.type as string)).map((event) => [event.type, event.aggregate_id]);

    // Exactly to the period end: both renewals are announced, the licensed one renews; the metered one waits for its usage grace.
    const first = await ok(client.post(`/${accountId}/test-clock/advance`, { to: iso(end) }));
    const ranFirst = transitions(await systemEvents());
    expect(ranFirst.filter(([type]) => type === "customer.subscription.updated")).toEqual([["customer.subscription.updated", licensed.id]]);
    expect(first.transitions_run).toBe(ranFirst.length);
    expect(first.next_due).toBe(iso(new Date(end.getTime() + grace)));
    expect((await ok(client.get(`/${accountId}/subscriptions/${usage.id}`))).current_period_end).toBe(usage.current_period_end);

    // Past the grace: the metered subscription renews, counted by this advance.
    const second = await ok(client.post(`/${accountId}/test-clock/advance`, { to: iso(new Date(end.getTime() + grace + 60_000)) }));
    const ranSecond = transitions(await systemEvents()).slice(ranFirst.length);
    expect(ranSecond).toEqual([["customer.subscription.updated", usage.id]]);
    expect(second.transitions_run).toBe(ranSecond.length);
    expect((await ok(client.get(`/${accountId}/subscriptions/${usage.id}`))).current_period_start).toBe(usage.current_period_end);
  });
});

describe("test clock: overdue invoices", () => {
  it("emits invoice.overdue once when an open invoice passes its due date; paid ones never", async () => {
    const customer = await newCustomer();
    const now = await clockNow();
    const dueDate = new Date(now.getTime() + 10 * DAY);
    const open = async () => {
      const created = await sandbox.post(`/${account}/invoices`, {
        customer,
        currency: "usd",
        due_date: iso(dueDate),
        lines: [{ unit_amount_atom: 500, description: "Work" }],
      });
      expect(created.status, created.text).toBe(201);
      const finalized = await sandbox.post(`/${account}/invoices/${created.body.id}/finalize`);
      expect(finalized.status, finalized.text).toBe(200);
      return finalized.body;
    };
    const late = await open();
    const paid = await open();
    expect((await sandbox.post(`/${account}/invoices/${paid.id}/pay`, { paid_out_of_band: true })).body.status).toBe("paid");
    expect(late).toMatchObject({ status: "open", overdue_at: null });

    await advance(new Date(dueDate.getTime() + DAY));
    const after = (await sandbox.get(`/${account}/invoices/${late.id}`)).body;
    expect(after).toMatchObject({ status: "open", overdue_at: iso(dueDate), due_amount_atom: 500 });
    const events = await timeline(late.id);
    expect(events.map((e) => e.type)).toEqual(["invoice.created", "invoice.finalized", "invoice.overdue"]);
    expect(events[2]).toMatchObject({
      created: iso(dueDate),
      actor_type: "system",
      data: after,
      previous_data: { ...after, overdue_at: null, updated: late.updated },
    });

    await advance(new Date(dueDate.getTime() + 30 * DAY));
    expect((await timeline(late.id)).filter((e) => e.type === "invoice.overdue")).toHaveLength(1);
    expect((await timeline(paid.id)).map((e) => e.type)).not.toContain("invoice.overdue");
  });
});

describe("test clock: refusals", () => {
  it("403 on a live account, 422 for a time not after the clock's, 400 without `to`, 403 on another account", async () => {
    const live = await merchant.client.post(`/${merchant.accountId}/test-clock/advance`, { to: iso(new Date(Date.now() + DAY)) });
    expectProblem(live, 403, /sandbox/);
    const now = await clockNow();
    const past = await sandbox.post(`/${account}/test-clock/advance`, { to: iso(new Date(now.getTime() - DAY)) });
    expectProblem(past, 422);
    expect(past.body.errors).toEqual([expect.objectContaining({ field: "to" })]);
    expectProblem(await sandbox.post(`/${account}/test-clock/advance`, {}), 400, /to/);
    const other = await newMerchant();
    expectProblem(await sandbox.post(`/${other.sandboxAccountId}/test-clock/advance`, { to: iso(new Date(now.getTime() + DAY)) }), 403);
    // Refusals moved nothing.
    expect((await clockNow()).getTime() - now.getTime()).toBeLessThan(60_000);
    const liveClock = (await merchant.client.get(`/${merchant.accountId}/test-clock`)).body;
    expect(liveClock.offset_ms).toBe(0);
  });
});

describe("real time: the embedded ticker", () => {
  it("renews a subscription whose period ends while nobody calls the API, and collects the renewal invoice", async () => {
    const fresh = await newMerchant();
    const client = api(fresh.sandboxSecret.token);
    const accountId = fresh.sandboxAccountId;
    const productId = (await client.post(`/${accountId}/products`, { name: "Plan" })).body.id;
    const price = (await client.post(`/${accountId}/prices`, { product: productId, currency: "usd", unit_amount_atom: 700, type: "recurring", recurring: { interval: "month" } })).body.id;
    const customer = (await client.post(`/${accountId}/customers`, { email: "ticker@example.com" })).body.id;
    const created = await client.post(`/${accountId}/subscriptions`, { customer, items: [{ price }], default_payment_method: "pm_sandbox_succeeds" });
    expect(created.status, created.text).toBe(201);
    const sub = created.body;

    // One second before the period ends; from there real time (the ticker) must do the rest.
    const advanced = await client.post(`/${accountId}/test-clock/advance`, { to: iso(new Date(new Date(sub.current_period_end).getTime() - 1000)) });
    expect(advanced.status, advanced.text).toBe(200);
    expect(advanced.body.next_due).toBe(sub.current_period_end);

    const renewed = await eventually(
      async () => (await client.get(`/${accountId}/subscriptions/${sub.id}`)).body,
      (body) => body.current_period_start === sub.current_period_end,
      20_000,
    );
    expect(renewed).toMatchObject({ status: "active" });
    expect(renewed.latest_invoice).not.toBe(sub.latest_invoice);
    const invoice = (await client.get(`/${accountId}/invoices/${renewed.latest_invoice}`)).body;
    expect(invoice).toMatchObject({ status: "paid", subscription: sub.id, total_amount_atom: 700, attempt_count: 1 });
    const [event] = (await client.get(`/${accountId}/events?aggregate_id=${sub.id}&limit=1`)).body.items;
    expect(event).toMatchObject({ type: "customer.subscription.updated", actor_type: "system", data: renewed });
    // Stamped on the account's clock, at or just after the period end.
    expect(new Date(event.created).getTime()).toBeGreaterThanOrEqual(new Date(sub.current_period_end).getTime());
  });
});
