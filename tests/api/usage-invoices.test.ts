import { beforeAll, describe, expect, it } from "vitest";
import { lineRange } from "@/lib/time";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { download, pdfText, printedMoney } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let sandbox: Client;
let sandboxToken: string;
let account: string;
let product: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  sandboxToken = merchant.sandboxSecret.token;
  account = merchant.sandboxAccountId;
  product = (await sandbox.post(`/${account}/products`, { name: "API" })).body.id;
});

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

const clockNow = async () => Date.parse((await ok(sandbox.get(`/${account}/test-clock`))).now);
const advanceTo = (at: number) => ok(sandbox.post(`/${account}/test-clock/advance`, { to: new Date(at).toISOString() }));
const seconds = (ms: number) => Math.floor(ms / 1000);

describe("metered and tiered prices", () => {
  it.each([
    [{ billing_scheme: "tiered", tiers_mode: "volume" }, 400, /tiers/],
    [{ billing_scheme: "tiered", tiers_mode: "graduated", tiers: [{ up_to: 5, unit_amount_atom: 1 }] }, 422, /last tier/],
    [{ billing_scheme: "tiered", unit_amount_atom: 5, tiers_mode: "volume", tiers: [{ up_to: null, unit_amount_atom: 1 }] }, 422, /unit_amount_atom/],
    [{ unit_amount_atom: 5, recurring: { interval: "month", usage_type: "metered" } }, 400, /meter/],
    [{ unit_amount_atom: 5, recurring: { interval: "month", usage_type: "metered", meter: "mtr_prod_00000000000000000000000000000" } }, 422, /No such meter/],
  ])("refuses %j with %i", async (change, status, detail) => {
    const body = { product, currency: "usd", type: "recurring", recurring: { interval: "month" }, ...change };
    expectProblem(await sandbox.post(`/${account}/prices`, body), status, detail);
  });

  it("prices a licensed tiered item on an invoice by its tiers", async () => {
    const tiered = await ok(
      sandbox.post(`/${account}/prices`, {
        product,
        currency: "usd",
        type: "one_time",
        billing_scheme: "tiered",
        tiers_mode: "graduated",
        tiers: [{ up_to: 10, unit_amount_atom: 100, flat_amount_atom: 50 }, { up_to: null, unit_amount_atom: 80 }],
      }),
    );
    expect(tiered).toMatchObject({ billing_scheme: "tiered", tiers_mode: "graduated", unit_amount_atom: 0 });
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "tiers@example.com" }));
    const invoice = await ok(sandbox.post(`/${account}/invoices`, { customer: customer.id, currency: "usd", lines: [{ price: tiered.id, quantity: 12 }] }));
    expect(invoice.lines[0]).toMatchObject({ quantity: 12, unit_amount_atom: 0, amount_atom: 10 * 100 + 50 + 2 * 80 });
    expect(invoice.subtotal_atom).toBe(1210);
  });
});

describe("usage on invoices (sandbox test clock)", () => {
  it("bills the ended period's usage after the grace window, late events included, and the usage so far on cancel", async () => {
    const meter = await ok(sandbox.post(`/${account}/meters`, { event_name: "tokens", display_name: "Tokens", aggregation: "sum" }));
    const metered = await ok(
      sandbox.post(`/${account}/prices`, {
        product,
        currency: "usd",
        type: "recurring",
        recurring: { interval: "month", usage_type: "metered", meter: meter.id },
        billing_scheme: "tiered",
        tiers_mode: "volume",
        tiers: [{ up_to: 10, unit_amount_atom: 10 }, { up_to: null, unit_amount_atom: 7, flat_amount_atom: 3 }],
      }),
    );
    expect(metered.recurring).toEqual({ interval: "month", interval_count: 1, usage_type: "metered", meter: meter.id });
    const seat = await ok(sandbox.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } }));
    const customer = await ok(sandbox.post(`/${account}/customers`, { email: "usage@example.com" }));
    expectProblem(
      await sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: metered.id, quantity: 2 }] }),
      422,
      /has no quantity/,
    );
    const subscription = await ok(sandbox.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id }, { price: metered.id }] }));
    const first = await ok(sandbox.get(`/${account}/invoices/${subscription.latest_invoice}`));
    expect(first.lines.map((l: Json) => l.amount_atom)).toEqual([1000]);

    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    const send = (identifier: string, at: number, value: number) =>
      ok(sandbox.post(`/${account}/usage-events`, { event_name: "tokens", customer: customer.id, identifier, timestamp: seconds(at), payload: { value } }));
    await advanceTo(start + 4 * HOUR);
    await send("a", start + MINUTE, 4);
    await send("b", start + 2 * HOUR, 5);
    await send("c", start + 3 * HOUR, 100);
    await ok(sandbox.post(`/${account}/usage-events/c/cancel`));
    expect((await ok(sandbox.get(`/${account}/customers/${customer.id}/usage?meter=${meter.id}`))).value).toBe(9);

    // The period ends; within the grace hour nothing is billed yet, and a late event still counts.
    await advanceTo(end + 10 * MINUTE);
    expect((await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`))).current_period_end).toBe(subscription.current_period_end);
    await send("late", end - MINUTE, 3);
    await send("next", end + 5 * MINUTE, 6);
    await advanceTo(end + 2 * HOUR);
    const renewed = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const invoice = await ok(sandbox.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(invoice.status).not.toBe("draft");
    // 12 units in the volume tier above 10: 12 × 7 + 3.
    expect(invoice.lines.map((l: Json) => l.amount_atom)).toEqual([1000, 12 * 7 + 3]);
    // The metered line: its price, the aggregated quantity, no single unit amount (tiered).
    expect(invoice.lines[1]).toMatchObject({ price: metered.id, quantity: 12, unit_amount_atom: 0 });
    expect(invoice.subtotal_atom).toBe(1000 + 12 * 7 + 3);
    // The PDF prints the same quantity and amount.
    const printed = pdfText((await download(invoice.invoice_pdf, sandboxToken)).bytes);
    // Quantity, unit price (none: tiered), tax (none) and amount, in the line's row; then the volume tier that priced all 12 units.
    expect(printed).toContain(` 12 Tiered — ${printedMoney(12 * 7 + 3, "USD", "en")}`);
    expect(printed).toContain(`Units 11+ 12 ${printedMoney(7, "USD", "en")} ${printedMoney(12 * 7, "USD", "en")}`);
    expect(printed).toContain(`Flat fee (11+) ${printedMoney(3, "USD", "en")}`);
    // The description is a sentence: the meter's name, the units and the range, no ids or ISO timestamps.
    expect(invoice.lines[1].description).toBe(`Tokens × 12 (${lineRange(new Date(start), new Date(end))})`);
    expect(invoice.lines[1].description).not.toMatch(/mtr_|price_|\d{4}-\d{2}-\d{2}T/);
    // The invoice's own description: the subscription by its prices and the period its items bill in advance.
    expect(invoice.description).toBe(`Subscription to API, ${lineRange(new Date(renewed.current_period_start), new Date(renewed.current_period_end))}`);

    // The ended period is final: its events can no longer be cancelled; too-old events are invalid.
    const locked = await sandbox.post(`/${account}/usage-events/a/cancel`);
    expectProblem(locked, 409);
    expect(locked.body.error_code).toBe("usage_event_locked");
    const old = await sandbox.post(`/${account}/usage-events`, { event_name: "tokens", customer: customer.id, identifier: "old", timestamp: seconds(end - 2 * HOUR), payload: { value: 1 } });
    expect(old.body.error_code).toBe("timestamp_too_old");

    // Cancelling bills the usage so far (the 6 units of the new period) on a final invoice.
    const now = await clockNow();
    await send("more", now - MINUTE, 1);
    await ok(sandbox.post(`/${account}/subscriptions/${subscription.id}/cancel`));
    const cancelled = await ok(sandbox.get(`/${account}/subscriptions/${subscription.id}`));
    const final = await ok(sandbox.get(`/${account}/invoices/${cancelled.latest_invoice}`));
    expect(final.id).not.toBe(invoice.id);
    expect(final.lines.map((l: Json) => l.amount_atom)).toEqual([7 * 10]);
    expect(final.lines[0]).toMatchObject({ price: metered.id, quantity: 7 });
    expect(final.description).toBe(`Subscription to API: final usage, ${lineRange(new Date(renewed.current_period_start), new Date(cancelled.cancelled_at))}`);
  });
});
