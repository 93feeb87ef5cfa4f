import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * Issue 42 (defect 3): late usage has one rule (docs/usage-billing.md, "Late usage"). Within the
 * grace window, before the renewal invoices the ended period, a late event is accepted and billed
 * on that renewal; once the renewal finalized the period's usage, an event stamped in it is
 * `invalid` with `period_invoiced`, never accepted and lost.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const seconds = (ms: number) => Math.floor(ms / 1000);

describe("late usage around a renewal (sandbox test clock, default grace of one hour)", () => {
  it("accepts and bills a late event within the grace window; after the renewal refuses one as period_invoiced", async () => {
    const { client, account, ok } = await newSandbox();
    const product = (await ok(client.post(`/${account}/products`, { name: "API" }))).id;
    const meter = await ok(client.post(`/${account}/meters`, { event_name: "calls", display_name: "Calls", aggregation: "sum" }));
    const price = await ok(
      client.post(`/${account}/prices`, {
        product,
        currency: "usd",
        unit_amount_atom: 10,
        type: "recurring",
        recurring: { interval: "month", usage_type: "metered", meter: meter.id },
      }),
    );
    const seat = await ok(client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } }));
    const customer = (await ok(client.post(`/${account}/customers`, { email: "late@example.com" }))).id;
    const subscription = await ok(client.post(`/${account}/subscriptions`, { customer, items: [{ price: seat.id }, { price: price.id }] }));
    const end = Date.parse(subscription.current_period_end);
    const event = (identifier: string, at: number, value: number) => ({ event_name: "calls", customer, identifier, timestamp: seconds(at), payload: { value } });
    const advance = (to: number) => ok(client.post(`/${account}/test-clock/advance`, { to: new Date(to).toISOString() }));

    // Within the grace window, before the renewal: a late event of the ended period is accepted.
    await advance(end + 10 * MINUTE);
    expect(await ok(client.post(`/${account}/usage-events`, event("in-grace", end - 20 * MINUTE, 4)))).toEqual({ identifier: "in-grace", status: "accepted" });

    // The renewal (at the end of the grace window) bills it.
    await advance(end + 2 * HOUR);
    const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const invoice = await ok(client.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(invoice.status).not.toBe("draft");
    expect(invoice.lines.map((line: Json) => line.amount_atom)).toEqual([1000, 40]);
    expect(invoice.lines[1]).toMatchObject({ price: price.id, quantity: 4 });

    // After it: T − 30 min is refused, one by one and in a batch, and nothing of it is counted.
    const refused = await client.post(`/${account}/usage-events`, event("late", end - 30 * MINUTE, 7));
    expectProblem(refused, 422, /already invoiced/);
    expect(refused.body.error_code).toBe("period_invoiced");
    expect(refused.body.errors).toEqual([{ field: "timestamp", message: expect.stringContaining(subscription.current_period_end) }]);
    const batch = await ok(
      client.post(`/${account}/usage-events/batch`, { events: [event("late", end - 30 * MINUTE, 7), event("current", end + 90 * MINUTE, 2)] }),
    );
    expect(batch.items).toEqual([
      { identifier: "late", status: "invalid", error: { code: "period_invoiced", message: expect.stringMatching(/already invoiced/) } },
      { identifier: "current", status: "accepted" },
    ]);
    const latest = await ok(client.get(`/${account}/meters/${meter.id}/usage-events?customer=${customer}`));
    expect(latest.items.map((e: Json) => e.identifier)).toEqual(["current", "in-grace"]);
    // The invoiced event is final; the one of the open period is not.
    expect((await client.post(`/${account}/usage-events/in-grace/cancel`)).body.error_code).toBe("usage_event_locked");
    expect((await client.post(`/${account}/usage-events/current/cancel`)).status).toBe(200);
  });
});
