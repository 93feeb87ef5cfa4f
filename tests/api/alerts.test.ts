import { afterAll, describe, expect, it } from "vitest";
import type { Client, Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, Receiver } from "../helpers/receiver";

/*
 * Alerts (docs/usage-billing.md, "Alerts") over HTTP against the shared app (its clock ticks every
 * second: CLOCK_TEST_ENV). Each test has its own sandbox account, since a test clock moves a whole
 * account.
 *
 * "Nothing more fired" is proven without sleeping: `evaluated(customer)` creates a throwaway
 * credit_balance alert that always triggers (below an unreachable amount) and waits for it. The
 * evaluator evaluates all of a customer's alerts in one pass, after every change marked before,
 * so once the throwaway one triggered, every earlier change of the customer has been evaluated.
 */

const receivers: Receiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

type Sandbox = Awaited<ReturnType<typeof newSandbox>>;

function helpers({ client, account, ok }: Sandbox) {
  const post = (path: string, body: unknown = {}) => ok((client as Client).post(`/${account}${path}` as `/${string}/alerts`, body));
  const get = (path: string) => ok((client as Client).get(`/${account}${path}` as `/${string}/alerts`));
  const triggers = async (query: string): Promise<Json[]> => (await get(`/alert-triggers?limit=100&${query}`)).items;
  const evaluated = async (customer: string): Promise<void> => {
    const barrier = await post("/alerts", { type: "credit_balance", customer, below_atom: 1_000_000_000_000, currency: "usd", title: "barrier" });
    await eventually(() => triggers(`alert=${barrier.id}`), (items) => items.length === 1, 60_000);
    await post(`/alerts/${barrier.id}/archive`);
  };
  const ingest = (events: { customer: string; identifier: string; value: number; event_name?: string }[]) =>
    post(
      "/usage-events/batch",
      { events: events.map((e) => ({ event_name: e.event_name ?? "tokens", customer: e.customer, identifier: e.identifier, payload: { value: e.value } })) },
    );
  return { post, get, triggers, evaluated, ingest };
}

describe("alerts: the objects", () => {
  it("creates, lists, gets and archives alerts; refuses bad input with a 4xx and changes nothing", async () => {
    const sandbox = await newSandbox();
    const { client, account } = sandbox;
    const { post, get } = helpers(sandbox);
    const meter = await post("/meters", { event_name: "tokens", display_name: "Tokens", aggregation: "sum", value_key: "value" });
    const customer = await post("/customers", { email: "alerts@example.com" });

    const usage = await post("/alerts", { type: "usage_threshold", title: "Tokens", meter: meter.id, customer: customer.id, threshold: 1000 });
    expect(usage).toEqual({
      object: "alert",
      id: expect.stringMatching(/^alrt_/),
      type: "usage_threshold",
      title: "Tokens",
      status: "active",
      customer: customer.id,
      meter: meter.id,
      threshold: 1000,
      threshold_atom: null,
      below_atom: null,
      currency: null,
      livemode: false,
      created: expect.any(String),
      archived_at: null,
    });
    const spend = await post("/alerts", { type: "spend_threshold", threshold_atom: 50_000, currency: "EUR" });
    expect(spend).toMatchObject({ type: "spend_threshold", customer: null, threshold_atom: 50_000, currency: "eur", meter: null });
    const credit = await post("/alerts", { type: "credit_balance", customer: customer.id, below_atom: 0, currency: "usd" });
    expect(credit).toMatchObject({ type: "credit_balance", below_atom: 0, currency: "usd" });

    expect(await get(`/alerts/${usage.id}`)).toEqual(usage);
    expect((await get("/alerts")).items.map((a: Json) => a.id)).toEqual([credit.id, spend.id, usage.id]);
    expect((await get(`/alerts?customer=${customer.id}`)).items.map((a: Json) => a.id)).toEqual([credit.id, usage.id]);

    const archived = await post(`/alerts/${spend.id}/archive`);
    expect(archived).toMatchObject({ id: spend.id, status: "archived", archived_at: expect.any(String) });
    expect(await post(`/alerts/${spend.id}/archive`)).toEqual(archived);
    expect((await get("/alerts?status=active")).items.map((a: Json) => a.id)).toEqual([credit.id, usage.id]);

    // Every account path has its unscoped twin.
    expect((await client.get(`/alerts/${usage.id}`)).body).toEqual(usage);

    const bad = (body: unknown) => client.post(`/${account}/alerts`, body);
    expectProblem(await bad({ type: "usage_threshold", meter: "mtr_test_00000000000000000000000000", threshold: 5 }), 422, /No such meter/);
    expectProblem(await bad({ type: "usage_threshold", meter: meter.id, customer: "cus_test_nobody", threshold: 5 }), 422, /No such customer/);
    expectProblem(await bad({ type: "usage_threshold", meter: meter.id, threshold: -5 }), 422, /threshold/);
    expectProblem(await bad({ type: "spend_threshold", threshold_atom: 100 }), 400, /currency/);
    expectProblem(await bad({ type: "spend_threshold", threshold_atom: 100, currency: "xyz" }), 422, /ISO 4217/);
    expectProblem(await bad({ type: "credit_balance", below_atom: -1, currency: "usd" }), 422, /below_atom/);
    expectProblem(await bad({ type: "weather", threshold: 5 }), 422);
    expectProblem(await client.get(`/${account}/alerts/alrt_test_nothing`), 404, /No such alert/);
    expect((await get("/alerts")).items).toHaveLength(3);
  });
});

describe("alerts: usage thresholds", () => {
  it("fires alert.triggered once per alert and customer though many ingests cross it at once and more usage follows; a customer's alert only for its customer, an alert of every customer for each", async () => {
    const sandbox = await newSandbox();
    const { post, triggers, evaluated, ingest, get } = helpers(sandbox);
    const meter = await post("/meters", { event_name: "tokens", display_name: "Tokens", aggregation: "sum", value_key: "value" });
    const alice = await post("/customers", { email: "alice@example.com" });
    const bob = await post("/customers", { email: "bob@example.com" });
    const carol = await post("/customers", { email: "carol@example.com" });
    const alicesOwn = await post("/alerts", { type: "usage_threshold", meter: meter.id, customer: alice.id, threshold: 100 });
    const everyone = await post("/alerts", { type: "usage_threshold", meter: meter.id, threshold: 50 });

    // 20 concurrent requests of 10 tokens each for Alice (crossing 50 and 100), one of 150 for Bob
    // (over Alice's threshold, but it is not his alert), 10 for Carol (under both).
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => ingest([{ customer: alice.id, identifier: `a-${i}`, value: 10 }])),
      ingest([{ customer: bob.id, identifier: "b-0", value: 150 }]),
      ingest([{ customer: carol.id, identifier: "c-0", value: 10 }]),
    ]);
    await eventually(() => triggers(`customer=${alice.id}`), (items) => items.length === 2, 60_000);
    await eventually(() => triggers(`customer=${bob.id}`), (items) => items.length === 1, 60_000);
    // More usage after the crossing: nothing fires again in the period.
    await ingest([{ customer: alice.id, identifier: "a-after", value: 500 }, { customer: bob.id, identifier: "b-after", value: 500 }]);
    await evaluated(alice.id);
    await evaluated(bob.id);
    await evaluated(carol.id);

    const real = (items: Json[]) => items.filter((t) => t.alert_type === "usage_threshold");
    const ofAlice = real(await triggers(`customer=${alice.id}`));
    expect(ofAlice.map((t) => t.alert).sort()).toEqual([alicesOwn.id, everyone.id].sort());
    for (const trigger of ofAlice) {
      expect(trigger).toMatchObject({ object: "alert_trigger", customer: alice.id, meter: meter.id, resolved_at: null });
      expect(trigger.value).toBeGreaterThanOrEqual(trigger.threshold);
    }
    expect(real(await triggers(`customer=${bob.id}`))).toEqual([expect.objectContaining({ alert: everyone.id, customer: bob.id, threshold: 50, value: expect.any(Number) })]);
    expect(real(await triggers(`customer=${carol.id}`))).toEqual([]);

    // The events: one alert.triggered per trigger, naming alert, customer, meter, value and threshold.
    const events = (await get("/events?event_type=alert.triggered&limit=100")).items.filter((e: Json) => e.data.alert_type === "usage_threshold");
    expect(events).toHaveLength(3);
    const byAlice = events.find((e: Json) => e.data.customer === alice.id && e.data.alert === alicesOwn.id);
    expect(byAlice.data).toMatchObject({ alert: alicesOwn.id, customer: alice.id, meter: meter.id, threshold: 100 });
  });
});

describe("alerts: spend thresholds", () => {
  it("fires from the upcoming invoice's total, as POST /invoices/preview shows it", async () => {
    const sandbox = await newSandbox();
    const { post, triggers, evaluated, ingest } = helpers(sandbox);
    const meter = await post("/meters", { event_name: "tokens", display_name: "Tokens", aggregation: "sum", value_key: "value" });
    const product = await post("/products", { name: "API" });
    const seat = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } });
    const metered = await post("/prices", {
      product: product.id,
      currency: "usd",
      unit_amount_atom: 10,
      type: "recurring",
      recurring: { interval: "month", usage_type: "metered", meter: meter.id },
    });
    const customer = await post("/customers", { email: "spender@example.com" });
    await post("/subscriptions", { customer: customer.id, items: [{ price: seat.id }, { price: metered.id }] });
    const alert = await post("/alerts", { type: "spend_threshold", customer: customer.id, threshold_atom: 1500, currency: "usd" });

    // 40 tokens: 1000 + 400 < 1500, nothing fires.
    await ingest([{ customer: customer.id, identifier: "s-1", value: 40 }]);
    await evaluated(customer.id);
    expect(await triggers(`alert=${alert.id}`)).toEqual([]);
    // 10 more: 1500, it fires with the preview's total.
    await ingest([{ customer: customer.id, identifier: "s-2", value: 10 }]);
    const [trigger] = await eventually(() => triggers(`alert=${alert.id}`), (items) => items.length === 1, 60_000);
    const preview = await post("/invoices/preview", { customer: customer.id });
    expect(preview.total_amount_atom).toBe(1500);
    expect(trigger).toMatchObject({ alert_type: "spend_threshold", customer: customer.id, currency: "usd", value: preview.total_amount_atom, threshold: 1500 });
  });
});

describe("alerts: periods (sandbox test clock) and webhooks", () => {
  it("resolves at the next period (alert.resolved), fires again in the new period, and delivers both to a webhook endpoint", async () => {
    const sandbox = await newSandbox();
    const { post, get, triggers, ingest } = helpers(sandbox);
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const endpoint = await post("/webhook-endpoints", { url: receiver.url, events: ["alert.triggered", "alert.resolved"] });
    receiver.useSecret(endpoint.secret);
    const meter = await post("/meters", { event_name: "tokens", display_name: "Tokens", aggregation: "sum", value_key: "value" });
    // No subscription: the customer's period is the calendar month (UTC) on the account's clock.
    const customer = await post("/customers", { email: "monthly@example.com" });
    const alert = await post("/alerts", { type: "usage_threshold", meter: meter.id, customer: customer.id, threshold: 5 });

    await ingest([{ customer: customer.id, identifier: "m1-a", value: 5 }]);
    const [first] = await eventually(() => triggers(`alert=${alert.id}`), (items) => items.length === 1, 60_000);
    const now = new Date((await get("/test-clock")).now);
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(first).toMatchObject({ value: 5, threshold: 5, period_start: new Date(monthStart).toISOString(), period_end: new Date(nextMonth).toISOString(), resolved_at: null });

    // The month ends: alert.resolved, stamped at the period end.
    await post("/test-clock/advance", { to: new Date(nextMonth + 60 * 60 * 1000).toISOString() });
    const resolved = (await triggers(`alert=${alert.id}`))[0];
    expect(resolved).toMatchObject({ id: first.id, resolved_at: new Date(nextMonth).toISOString() });

    // Usage of the new month crosses again: a new trigger in the new period.
    await ingest([{ customer: customer.id, identifier: "m2-a", value: 3 }, { customer: customer.id, identifier: "m2-b", value: 4 }]);
    const both = await eventually(() => triggers(`alert=${alert.id}`), (items) => items.length === 2, 60_000);
    expect(both[0]).toMatchObject({ value: 7, period_start: new Date(nextMonth).toISOString(), resolved_at: null });

    // The endpoint received the three events, signed, naming the alert, customer, meter, value and threshold.
    const deliveries = await receiver.waitFor(3);
    expect(deliveries.every((d) => d.signatureValid)).toBe(true);
    expect(deliveries.map((d) => d.body.type).sort()).toEqual(["alert.resolved", "alert.triggered", "alert.triggered"]);
    const firstDelivery = deliveries.find((d) => d.body.type === "alert.triggered" && d.body.data.object.id === first.id)!;
    expect(firstDelivery.body.data.object).toMatchObject({ object: "alert_trigger", alert: alert.id, customer: customer.id, meter: meter.id, value: 5, threshold: 5 });
  });
});
