import { describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

/*
 * What a change request previews is what is billed: its `amount_due_now_total_atom` is the total of
 * the proration invoice applying it finalizes, its `next_invoice_total_atom` the total of the renewal
 * invoice the test clock then finalizes, both with the customer's discount and taxes
 * (docs/billing.md, "What a change request shows").
 */

const DAY = 86_400_000;

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

async function setup() {
  const merchant = await newMerchant();
  const client: Client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = await ok(client.post(`/${account}/products`, { name: "Team" }));
  const seat = await ok(client.post(`/${account}/prices`, { product: product.id, currency: "usd", unit_amount_atom: 1_000, type: "recurring", recurring: { interval: "month" } }));
  const vat = await ok(client.post(`/${account}/tax-rates`, { display_name: "VAT", percentage: 19, inclusive: false }));
  const coupon = await ok(client.post(`/${account}/coupons`, { percent_off: 10, duration: "forever" }));
  const customer = await ok(client.post(`/${account}/customers`, { email: "totals@example.com", default_tax_rate: vat.id }));
  await ok(client.post(`/${account}/customers/${customer.id}/discount`, { coupon: coupon.id }));
  const subscription = await ok(
    client.post(`/${account}/subscriptions`, { customer: customer.id, items: [{ price: seat.id, quantity: 1 }], default_payment_method: "pm_sandbox_succeeds" }),
  );
  const advanceTo = (at: number) => ok(client.post(`/${account}/test-clock/advance`, { to: new Date(at).toISOString() }));
  return { client, account, subscription, advanceTo };
}

describe("a change request's totals", () => {
  it("due now and the next invoice include the discount and the taxes, and equal the invoices then finalized", async () => {
    const { client, account, subscription, advanceTo } = await setup();
    const end = Date.parse(subscription.current_period_end);
    await advanceTo(Date.parse(subscription.current_period_start) + 10 * DAY);
    const requests = `/${account}/subscriptions/${subscription.id}/change-requests` as const;
    const request = await ok(
      client.post(requests, { steps: [{ type: "set_quantity", item: subscription.items[0].id, quantity: 3 }], effective: "now" }),
    );
    // The prorated and per-period amounts stay what they were (before the discount and the taxes)...
    expect(request.amount_due_now_atom).toBeGreaterThan(0);
    expect(request.next_invoice_amount_atom).toBe(3_000);
    // ... and the totals beside them are the invoices': 3,000 − 10 % = 2,700, + 19 % = 513: 3,213.
    expect(request.next_invoice_total_atom).toBe(3_213);
    expect(request.amount_due_now_total_atom).toBeGreaterThan(request.amount_due_now_atom);

    const applied = await ok(client.post(`${requests}/${request.id}/apply`, {}));
    const proration = await ok(client.get(`/${account}/invoices/${applied.invoice}`));
    expect(proration.total_amount_atom).toBe(request.amount_due_now_total_atom);
    expect(proration.tax_atom).toBeGreaterThan(0);
    expect(proration.discount_atom).toBeGreaterThan(0);

    await advanceTo(end + DAY);
    const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const renewal = await ok(client.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(renewal.total_amount_atom).toBe(request.next_invoice_total_atom);
  });

  it("a change at the period end: nothing due now, and the next invoice's total is the renewal's", async () => {
    const { client, account, subscription, advanceTo } = await setup();
    const end = Date.parse(subscription.current_period_end);
    const requests = `/${account}/subscriptions/${subscription.id}/change-requests` as const;
    const request = await ok(
      client.post(requests, { steps: [{ type: "set_quantity", item: subscription.items[0].id, quantity: 2 }], effective: "period_end" }),
    );
    expect(request).toMatchObject({ amount_due_now_atom: 0, amount_due_now_total_atom: 0, next_invoice_amount_atom: 2_000 });
    // 2,000 − 10 % = 1,800, + 19 % = 342.
    expect(request.next_invoice_total_atom).toBe(2_142);
    await ok(client.post(`${requests}/${request.id}/apply`, {}));
    await advanceTo(end + DAY);
    const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
    const renewal = await ok(client.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(renewal.total_amount_atom).toBe(request.next_invoice_total_atom);
  });
});
