import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * Issue 42 (defect 1): a `duration: "once"` coupon discounts exactly one invoice, the first the
 * customer's discount meets after it starts; finalizing it ends the discount (docs/billing.md,
 * "Once coupons"). Repeating and forever coupons keep discounting every invoice in their term.
 */

const DAY = 86_400_000;

/** Every test has its own sandbox account: the test clock moves a whole account. */
async function sandbox() {
  const { client, account, ok } = await newSandbox();
  const product = (await ok(client.post(`/${account}/products`, { name: "Plan" }))).id as string;
  const monthly = (await ok(
    client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } }),
  )).id as string;
  const customer = async () => (await ok(client.post(`/${account}/customers`, { email: "once@example.com" }))).id as string;
  const coupon = async (body: Json) => (await ok(client.post(`/${account}/coupons`, body))).id as string;
  const discount = (customerId: string, couponId: string) => ok(client.post(`/${account}/customers/${customerId}/discount`, { coupon: couponId }));
  const subscribe = (customerId: string) =>
    ok(client.post(`/${account}/subscriptions`, { customer: customerId, items: [{ price: monthly }], default_payment_method: "pm_sandbox_succeeds" }));
  const invoice = (id: string) => ok(client.get(`/${account}/invoices/${id}`));
  const advance = (to: number) => ok(client.post(`/${account}/test-clock/advance`, { to: new Date(to).toISOString() }));
  /** Renews the subscription once (the clock passes its period end) and answers the renewal's invoice. */
  const renew = async (subscription: Json) => {
    await advance(Date.parse(subscription.current_period_end) + DAY);
    const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.latest_invoice).not.toBe(subscription.latest_invoice);
    return { renewed, invoice: await invoice(renewed.latest_invoice) };
  };
  return { client, account, ok, customer, coupon, discount, subscribe, invoice, renew };
}

describe("once coupons", () => {
  it("a 50 % once coupon on a 20.00 monthly subscription: the first invoice 10.00, the renewal 20.00, and the preview after agrees", async () => {
    const s = await sandbox();
    const customer = await s.customer();
    const applied = await s.discount(customer, await s.coupon({ percent_off: 50, duration: "once" }));
    expect(applied.end).toBeNull();

    const subscription = await s.subscribe(customer);
    const first = await s.invoice(subscription.latest_invoice);
    expect(first).toMatchObject({ subtotal_atom: 2000, discount_atom: 1000, total_amount_atom: 1000, discount: applied.id });

    // The discount ended with that finalization: gone from the customer, ended at the finalization time.
    expectProblem(await s.client.get(`/${s.account}/customers/${customer}/discount`), 404);
    const timeline = (await s.ok(s.client.get(`/${s.account}/events?aggregate_id=${applied.id}`))).items as Json[];
    expect(timeline.map((event) => event.type)).toEqual(["customer.discount.deleted", "customer.discount.created"]);
    expect(timeline[0]!.data).toMatchObject({ id: applied.id, deleted: true, end: first.finalized_at });
    expect(timeline[0]!.previous_data).toMatchObject({ id: applied.id, end: null });

    // The preview of the renewal shows no discount, and the renewal bills the full 20.00.
    const preview = await s.ok(s.client.post(`/${s.account}/invoices/preview`, { customer, subscription: subscription.id }));
    expect(preview).toMatchObject({ subtotal_atom: 2000, discount_atom: 0, total_amount_atom: 2000, discount: null });
    const { invoice: renewal } = await s.renew(subscription);
    expect(renewal).toMatchObject({ subtotal_atom: 2000, discount_atom: 0, total_amount_atom: 2000, discount: null });
  });

  it("a customer's once discount discounts the customer's next finalized invoice only, then a new coupon may be applied", async () => {
    const s = await sandbox();
    const customer = await s.customer();
    const applied = await s.discount(customer, await s.coupon({ amount_off_atom: 300, currency: "usd", duration: "once" }));
    const manual = async () => {
      const draft = await s.ok(s.client.post(`/${s.account}/invoices`, { customer, currency: "usd", lines: [{ unit_amount_atom: 1000, description: "Setup" }] }));
      // A draft does not use the discount: only finalization does.
      expect(draft.discount_atom).toBe(0);
      return s.ok(s.client.post(`/${s.account}/invoices/${draft.id}/finalize`));
    };
    const discounted = await manual();
    expect(discounted).toMatchObject({ discount_atom: 300, total_amount_atom: 700, discount: applied.id });
    const full = await manual();
    expect(full).toMatchObject({ discount_atom: 0, total_amount_atom: 1000, discount: null });

    // The ended discount no longer holds the customer's one discount: another coupon applies anew.
    const again = await s.discount(customer, await s.coupon({ percent_off: 10, duration: "once" }));
    expect(again.id).not.toBe(applied.id);
    expect(await manual()).toMatchObject({ discount_atom: 100, total_amount_atom: 900, discount: again.id });
  });

  it.each([
    ["forever", { percent_off: 50, duration: "forever" }],
    ["repeating for 3 months", { percent_off: 50, duration: "repeating", duration_in_months: 3 }],
  ])("a %s coupon still discounts the renewal", async (_name, body) => {
    const s = await sandbox();
    const customer = await s.customer();
    const applied = await s.discount(customer, await s.coupon(body));
    const subscription = await s.subscribe(customer);
    expect(await s.invoice(subscription.latest_invoice)).toMatchObject({ total_amount_atom: 1000, discount: applied.id });
    const { invoice: renewal } = await s.renew(subscription);
    expect(renewal).toMatchObject({ total_amount_atom: 1000, discount: applied.id });
    expect((await s.ok(s.client.get(`/${s.account}/customers/${customer}/discount`))).id).toBe(applied.id);
  });
});
