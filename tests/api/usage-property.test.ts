import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, type AccountPath, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const AGGREGATIONS = ["sum", "count", "max", "last", "unique_count"] as const;
type Aggregation = (typeof AGGREGATIONS)[number];

/** The reference: the meter's value over these live events, computed independently of the service. */
function reference(aggregation: Aggregation, events: { ts: number; value: number }[]): number | null {
  if (aggregation === "count") return events.length;
  if (aggregation === "sum") return events.reduce((total, e) => total + e.value, 0);
  if (aggregation === "unique_count") return new Set(events.map((e) => e.value % 3)).size;
  if (events.length === 0) return null;
  if (aggregation === "max") return Math.max(...events.map((e) => e.value));
  return [...events].sort((a, b) => b.ts - a.ts)[0]!.value;
}

const eventArbitrary = fc.record({
  meter: fc.nat({ max: 4 }),
  customer: fc.nat({ max: 1 }),
  slot: fc.nat({ max: 10_000 }),
  value: fc.nat({ max: 1000 }),
  // About 5 % late within grace, 10 % sent twice, 10 % cancelled.
  late: fc.nat({ max: 99 }).map((n) => n < 5),
  duplicate: fc.nat({ max: 99 }).map((n) => n < 10),
  cancel: fc.nat({ max: 99 }).map((n) => n < 10),
});

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

/**
 * Random meters of every aggregation, two customers, events with duplicates, late arrivals within
 * the grace window, cancellations, sent shuffled in random batches: the usage endpoint and the
 * renewal invoice's lines (quantity and amount) equal the sums computed here, for every customer
 * and meter.
 */
describe("usage exactness (property)", () => {
  it("usage and invoice lines equal an independent computation", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventArbitrary, { minLength: 1, maxLength: 120 }), fc.integer({ min: 1, max: 60 }), fc.integer(), async (drawn, batchSize, seed) => {
        const merchant = await newMerchant();
        const account = merchant.sandboxAccountId;
        const client: Client = api(merchant.sandboxSecret.token);
        const post = (path: AccountPath<"post">, body: unknown = {}) => ok(client.post(`/${account}${path}`, body));
        const product = await post("/products", { name: "Usage" });
        const meters: Json[] = [];
        const prices: Json[] = [];
        for (const aggregation of AGGREGATIONS) {
          const meter = await post("/meters", { event_name: `m_${aggregation}`, display_name: aggregation, aggregation, value_key: "v" });
          meters.push(meter);
          prices.push(
            await post("/prices", {
              product: product.id,
              currency: "usd",
              unit_amount_atom: 1,
              type: "recurring",
              recurring: { interval: "month", usage_type: "metered", meter: meter.id },
            }),
          );
        }
        const customers = [await post("/customers", { email: "p0@example.com" }), await post("/customers", { email: "p1@example.com" })];
        const subscriptions: Json[] = [];
        for (const customer of customers) {
          subscriptions.push(await post("/subscriptions", { customer: customer.id, items: prices.map((p) => ({ price: p.id })) }));
        }
        const start = Date.parse(subscriptions[0].current_period_start);
        const end = Date.parse(subscriptions[0].current_period_end);
        const startOf = (c: number) => Date.parse(subscriptions[c].current_period_start);
        const endOf = (c: number) => Date.parse(subscriptions[c].current_period_end);
        // Unique timestamps per event, within the first 2 hours of the period or its last hour, in
        // whole seconds as the API takes them (the period starts at a millisecond: the first second
        // counted is the one after it).
        const second = (ms: number) => Math.ceil(ms / 1000) * 1000;
        const events = drawn.map((e, i) => ({
          ...e,
          identifier: `e${i}`,
          ts: e.late ? second(endOf(e.customer) - HOUR) + (i * 25 + (e.slot % 25)) * 1000 : second(startOf(e.customer)) + (i * 60 + (e.slot % 60)) * 1000,
        }));
        const body = (e: (typeof events)[number]) => ({
          event_name: `m_${AGGREGATIONS[e.meter]}`,
          customer: customers[e.customer].id,
          identifier: e.identifier,
          timestamp: Math.floor(e.ts / 1000),
          payload: { v: AGGREGATIONS[e.meter] === "unique_count" ? `k${e.value % 3}` : e.value },
        });
        const shuffled = (list: (typeof events)[number][]) => {
          let state = seed;
          return [...list]
            .map((e) => ({ e, key: (state = (state * 1103515245 + 12345) & 0x7fffffff) }))
            .sort((a, b) => a.key - b.key)
            .map(({ e }) => e);
        };
        const sendAll = async (list: (typeof events)[number][]) => {
          const withDuplicates = shuffled([...list, ...list.filter((e) => e.duplicate)]);
          for (let i = 0; i < withDuplicates.length; i += batchSize) {
            const answer = await post("/usage-events/batch", { events: withDuplicates.slice(i, i + batchSize).map(body) });
            for (const item of answer.items) expect(["accepted", "duplicate"]).toContain(item.status);
          }
        };
        const expectedOf = (c: number, m: number, list: (typeof events)[number][]) =>
          reference(
            AGGREGATIONS[m]!,
            list.filter((e) => e.customer === c && e.meter === m && !e.cancel).map((e) => ({ ts: e.ts, value: e.value })),
          );

        await post("/test-clock/advance", { to: new Date(start + 6 * HOUR + MINUTE).toISOString() });
        const onTime = events.filter((e) => !e.late);
        await sendAll(onTime);
        for (const e of onTime.filter((x) => x.cancel)) await post(`/usage-events/${e.identifier}/cancel`);
        for (const [c, customer] of customers.entries()) {
          for (const [m, meter] of meters.entries()) {
            const usage = await ok(client.get(`/${account}/customers/${customer.id}/usage?meter=${meter.id}`));
            expect(usage.value, `${AGGREGATIONS[m]} of customer ${c}`).toBe(expectedOf(c, m, onTime));
          }
        }

        // The period ends; late events arrive within the grace window; the renewal bills all of it.
        await post("/test-clock/advance", { to: new Date(end + 10 * MINUTE).toISOString() });
        const late = events.filter((e) => e.late);
        await sendAll(late);
        for (const e of late.filter((x) => x.cancel)) await post(`/usage-events/${e.identifier}/cancel`);
        await post("/test-clock/advance", { to: new Date(end + 2 * HOUR).toISOString() });
        for (const [c, subscription] of subscriptions.entries()) {
          const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
          const invoice = await ok(client.get(`/${account}/invoices/${renewed.latest_invoice}`));
          // One line per metered item: the aggregated quantity, its per-unit price (1) and amount.
          const expected = meters.map((_, m) => expectedOf(c, m, events) ?? 0);
          expect(invoice.lines.map((line: Json) => line.quantity)).toEqual(expected);
          expect(invoice.lines.map((line: Json) => line.price)).toEqual(prices.map((p) => p.id));
          expect(invoice.lines.map((line: Json) => line.unit_amount_atom)).toEqual(expected.map(() => 1));
          expect(invoice.lines.map((line: Json) => line.amount_atom)).toEqual(expected);
          expect(invoice.subtotal_atom).toBe(expected.reduce((total, n) => total + n, 0));
        }
      }),
      { numRuns: 12 },
    );
  });
});
