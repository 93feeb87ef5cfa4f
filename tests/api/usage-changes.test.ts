import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * Metered items in subscription changes (docs/rules/usage.md, "Metered items in subscription
 * changes"): no quantity, no proration; the usage a removed or switched-away metered item accrued
 * is billed on the next invoice at its old price, and a metered item added or switched to bills
 * usage from the change on.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let sandbox: Client;
let account: string;
let product: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  product = (await sandbox.post(`/${account}/products`, { name: "Usage plan" })).body.id;
});

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

const advanceTo = (at: number) => ok(sandbox.post(`/${account}/test-clock/advance`, { to: new Date(at).toISOString() }));
const seconds = (ms: number) => Math.floor(ms / 1000);
const meter = (event_name: string) => ok(sandbox.post(`/${account}/meters`, { event_name, display_name: event_name, aggregation: "sum" }));
const meteredPrice = (meterId: string, unit: number) =>
  ok(
    sandbox.post(`/${account}/prices`, {
      product,
      currency: "usd",
      unit_amount_atom: unit,
      type: "recurring",
      recurring: { interval: "month", usage_type: "metered", meter: meterId },
    }),
  );

describe("metered items in change requests", () => {
  it("refuses quantities of metered items, prorates nothing for them, and bills the usage of removed and switched items on the next invoice", async () => {
    const calls = await meter("calls_changes");
    const bytes = await meter("bytes_changes");
    const callsAt2 = await meteredPrice(calls.id, 2);
    const callsAt5 = await meteredPrice(calls.id, 5);
    const bytesAt1 = await meteredPrice(bytes.id, 1);
    const bytesAt3 = await meteredPrice(bytes.id, 3);
    const seat = await ok(sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } }));
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "usage-changes@example.com" }));
    const subscription = await ok(
      sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id }, { price: callsAt2.id }, { price: bytesAt1.id }] }),
    );
    const [seatItem, callsItem, bytesItem] = subscription.items as Json[];
    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    const requests = `/${account}/subscriptions/${subscription.id}/change-requests` as const;
    const send = (identifier: string, event_name: string, at: number, value: number) =>
      ok(sandbox.post(`/${account}/usage-events`, { event_name, customer: customer.id, identifier, timestamp: seconds(at), payload: { value } }));

    // A metered item has no quantity, in a change request as in the items API.
    for (const [steps, field] of [
      [[{ type: "set_quantity", item: callsItem.id, quantity: 3 }], "steps.0.quantity"],
      [[{ type: "add_item", price: bytesAt3.id, quantity: 2 }], "steps.0.quantity"],
    ] as const) {
      const refused = await sandbox.post(requests, { steps });
      expectProblem(refused, 422, /metered/);
      expect(refused.body.errors.map((e: Json) => e.field)).toContain(field);
    }

    await advanceTo(start + 2 * HOUR);
    await send("c1", "calls_changes", start + HOUR, 10);
    await send("b1", "bytes_changes", start + HOUR, 4);

    // Switch the calls item to another metered price and remove the bytes item: nothing is
    // prorated (metered items bill in arrears), the next invoice's fixed amount is the seat's.
    const change = await ok(
      sandbox.post(requests, { steps: [{ type: "switch_price", item: callsItem.id, price: callsAt5.id }, { type: "remove_item", item: bytesItem.id }] }),
    );
    expect(change).toMatchObject({ amount_due_now_atom: 0, next_invoice_amount_atom: 1000 });
    const applied = await ok(sandbox.post(`${requests}/${change.id}/apply`, {}));
    expect(applied.status).toBe("applied");

    await advanceTo(start + 4 * HOUR);
    await send("c2", "calls_changes", start + 3 * HOUR, 3);
    // The removed item's meter: billed by no item from the removal on.
    await send("b2", "bytes_changes", start + 3 * HOUR, 100);

    // A metered item added mid-period bills its meter's usage from then on (not the 4 + 100 before).
    const add = await ok(sandbox.post(requests, { steps: [{ type: "add_item", price: bytesAt3.id }] }));
    expect(add).toMatchObject({ amount_due_now_atom: 0, next_invoice_amount_atom: 1000 });
    const added = await ok(sandbox.post(`${requests}/${add.id}/apply`, {}));
    const current = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    expect(current.items.map((item: Json) => [item.price, item.quantity])).toEqual([
      [seat.id, 1],
      [callsAt5.id, 1],
      [bytesAt3.id, 1],
    ]);
    expect(current.items[1].id).toBe(callsItem.id);
    await advanceTo(start + 6 * HOUR);
    await send("b3", "bytes_changes", start + 5 * HOUR, 7);

    // The renewal after the grace window: the seat, then the closed segments at their old prices,
    // then the live metered items from when they started.
    await advanceTo(end + 2 * HOUR);
    const renewed = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const invoice = await ok(sandbox.get(`/${account}/invoices/${renewed.latest_invoice}`));
    // Each range in a description: the switch ends the old price's range where the new one's
    // begins (the step's instant, during the apply); the added item's starts at its apply.
    const range = (line: Json) => {
      const [, units, from, to] = / × ([\d,]+) \((.+) – (.+)\)$/.exec(line.description)!;
      return { units: Number(units!.replaceAll(",", "")), from: Date.parse(from!), to: Date.parse(to!) };
    };
    const [oldCalls, oldBytes, newCalls, newBytes] = (invoice.lines as Json[]).slice(1).map(range);
    // A description prints an instant to the second.
    const toSecond = (at: string | number) => Math.floor(new Date(at).getTime() / 1000) * 1000;
    expect(oldCalls).toMatchObject({ units: 10, from: toSecond(start) });
    expect(oldCalls!.to).toBeGreaterThanOrEqual(toSecond(start + 2 * HOUR));
    expect(oldCalls!.to).toBeLessThanOrEqual(Date.parse(applied.applied_at));
    expect(newCalls).toEqual({ units: 3, from: oldCalls!.to, to: toSecond(end) });
    expect(oldBytes).toMatchObject({ units: 4, from: toSecond(start), to: toSecond(applied.applied_at) });
    expect(newBytes).toEqual({ units: 7, from: toSecond(added.applied_at), to: toSecond(end) });
    expect(invoice.subtotal_atom).toBe(1000 + 20 + 4 + 15 + 21);

    // Billed once: the next period's invoice has the live items only, with this period's usage.
    const next = Date.parse(renewed.current_period_end);
    await advanceTo(end + 4 * HOUR);
    await send("c3", "calls_changes", end + 3 * HOUR, 2);
    await advanceTo(next + 2 * HOUR);
    const again = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    const second = await ok(sandbox.get(`/${account}/invoices/${again.latest_invoice}`));
    expect(second.lines.map((l: Json) => [l.price, l.quantity, l.amount_atom])).toEqual([
      [seat.id, 1, 1000],
      [callsAt5.id, 2, 10],
      [bytesAt3.id, 0, 0],
    ]);
    expect(seatItem.price).toBe(seat.id);
  });

  it("waits the grace window for the usage of a removed metered item, so its late events still count", async () => {
    const late = await meter("late_changes");
    const perEvent = await meteredPrice(late.id, 3);
    const seat = await ok(sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 200, type: "recurring", recurring: { interval: "month" } }));
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "usage-late@example.com" }));
    const subscription = await ok(sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id }, { price: perEvent.id }] }));
    const metered = (subscription.items as Json[]).find((item) => item.price === perEvent.id)!;
    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    const send = (identifier: string, at: number, value: number) =>
      ok(sandbox.post(`/${account}/usage-events`, { event_name: "late_changes", customer: customer.id, identifier, timestamp: seconds(at), payload: { value } }));
    await advanceTo(start + HOUR);
    await send("l1", start + 30 * MINUTE, 2);
    const requests = `/${account}/subscriptions/${subscription.id}/change-requests` as const;
    const removal = await ok(sandbox.post(requests, { steps: [{ type: "remove_item", item: metered.id }] }));
    await ok(sandbox.post(`${requests}/${removal.id}/apply`, {}));

    // No metered item is left, but its usage is still to bill: the renewal waits the grace window.
    await advanceTo(end + 10 * MINUTE);
    expect((await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`))).current_period_end).toBe(subscription.current_period_end);
    await send("l2", start + 45 * MINUTE, 5);
    await advanceTo(end + 2 * HOUR);
    const renewed = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const invoice = await ok(sandbox.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(invoice.lines.map((l: Json) => [l.price, l.quantity, l.amount_atom])).toEqual([
      [seat.id, 1, 200],
      [perEvent.id, 7, 21],
    ]);
  });

  it("bills a metered item removed through the items API on the final invoice when the subscription is cancelled", async () => {
    const tokens = await meter("tokens_changes");
    const perToken = await meteredPrice(tokens.id, 4);
    const seat = await ok(sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 500, type: "recurring", recurring: { interval: "month" } }));
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "usage-remove@example.com" }));
    const clock = Date.parse((await ok(sandbox.get(`/${account}/test-clock`))).now);
    const subscription = await ok(sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id }, { price: perToken.id }] }));
    const metered = (subscription.items as Json[]).find((item) => item.price === perToken.id)!;
    await advanceTo(clock + HOUR);
    await ok(sandbox.post(`/${account}/usage-events`, { event_name: "tokens_changes", customer: customer.id, identifier: "t1", timestamp: seconds(clock + 30 * MINUTE), payload: { value: 6 } }));
    await ok(sandbox.delete(`/${account}/subscriptions/${subscription.id}/items/${metered.id}`));
    // After the removal its meter bills nothing more.
    await advanceTo(clock + 2 * HOUR);
    await ok(sandbox.post(`/${account}/usage-events`, { event_name: "tokens_changes", customer: customer.id, identifier: "t2", timestamp: seconds(clock + 90 * MINUTE), payload: { value: 50 } }));
    await ok(sandbox.post(`/${account}/subscriptions/${subscription.id}/cancel`, {}));
    const cancelled = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    const final = await ok(sandbox.get(`/${account}/invoices/${cancelled.latest_invoice}`));
    expect(final.lines.map((l: Json) => [l.price, l.quantity, l.amount_atom])).toEqual([[perToken.id, 6, 24]]);
    expect(final.status).not.toBe("draft");
  });
  it("switches a metered item at the period end: the old price bills the whole period, the new one from the period's end, grace-window events included", async () => {
    const calls = await meter("calls_period_end");
    const callsAt2 = await meteredPrice(calls.id, 2);
    const callsAt5 = await meteredPrice(calls.id, 5);
    const seat = await ok(sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } }));
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "usage-period-end@example.com" }));
    const subscription = await ok(sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id }, { price: callsAt2.id }] }));
    const callsItem = (subscription.items as Json[]).find((item) => item.price === callsAt2.id)!;
    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    const send = (identifier: string, at: number, value: number) =>
      ok(sandbox.post(`/${account}/usage-events`, { event_name: "calls_period_end", customer: customer.id, identifier, timestamp: seconds(at), payload: { value } }));
    await advanceTo(start + HOUR);
    await send("p1", start + 30 * MINUTE, 10);
    const requests = `/${account}/subscriptions/${subscription.id}/change-requests` as const;
    const change = await ok(sandbox.post(requests, { steps: [{ type: "switch_price", item: callsItem.id, price: callsAt5.id }], effective: "period_end" }));
    expect((await ok(sandbox.post(`${requests}/${change.id}/apply`, {}))).status).toBe("scheduled");

    // In the grace window: a late event of the old period, and one of the new period (after its end).
    await advanceTo(end + 10 * MINUTE);
    await send("p2", end - 10 * MINUTE, 4);
    await send("p3", end + 5 * MINUTE, 3);
    await advanceTo(end + 2 * HOUR);
    const renewed = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    expect(renewed.items.map((item: Json) => item.price)).toEqual([seat.id, callsAt5.id]);
    const first = await ok(sandbox.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(first.lines.map((l: Json) => [l.price, l.quantity, l.amount_atom])).toEqual([
      [seat.id, 1, 1000],
      [callsAt2.id, 14, 28],
    ]);

    const next = Date.parse(renewed.current_period_end);
    await advanceTo(next + 2 * HOUR);
    const again = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    const second = await ok(sandbox.get(`/${account}/invoices/${again.latest_invoice}`));
    expect(second.lines.map((l: Json) => [l.price, l.quantity, l.amount_atom])).toEqual([
      [seat.id, 1, 1000],
      [callsAt5.id, 3, 15],
    ]);
  });
});
