import { beforeAll, describe, expect, it } from "vitest";
import { DUNNING_RETRY_DAYS } from "@/lib/subscriptions/dunning";
import { api, type Json, type AccountPath } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const DAY = 86_400_000;
const iso = (date: Date) => date.toISOString();
const plus = (date: Date | string, days: number) => new Date(new Date(date).getTime() + days * DAY);

/**
 * Every test has its own sandbox account: the test clock moves a whole account, and the stories
 * here each move it by different amounts.
 */
async function sandboxAccount() {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id;
  const price = async (recurring: Json = { interval: "month" }, amount = 2000): Promise<string> => {
    const response = await client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring });
    expect(response.status, response.text).toBe(201);
    return response.body.id;
  };
  const customer = (await client.post(`/${account}/customers`, { email: "dunning@example.com" })).body.id as string;
  const subscribe = async (body: Json) => {
    const response = await client.post(`/${account}/subscriptions`, { customer, ...body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const advance = async (to: Date) => {
    const response = await client.post(`/${account}/test-clock/advance`, { to: iso(to) });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const timeline = async (aggregateId: string): Promise<Json[]> =>
    [...(await client.get(`/${account}/events?aggregate_id=${aggregateId}&limit=100`)).body.items].reverse();
  const get = async (path: AccountPath<"get">) => (await client.get(`/${account}${path}`)).body;
  return { client, account, customer, price, subscribe, advance, timeline, get };
}

type Sandbox = Awaited<ReturnType<typeof sandboxAccount>>;

/** A sandbox subscription with a 7-day trial, collected with `method`, advanced to one hour after its trial ends. */
async function trialEndedWith(sandbox: Sandbox, method: string) {
  const sub = await sandbox.subscribe({ items: [{ price: await sandbox.price() }], trial_period_days: 7, default_payment_method: method });
  const trialEnd = new Date(sub.trial_end);
  await sandbox.advance(new Date(trialEnd.getTime() + 3_600_000));
  const renewed = await sandbox.get(`/subscriptions/${sub.id}`);
  return { sub, trialEnd, renewed, invoiceId: renewed.latest_invoice as string };
}

beforeAll(() => {
  // The schedule these stories assert (documented in docs/rules/time.md, "Dunning").
  expect(DUNNING_RETRY_DAYS).toEqual([3, 5, 7]);
});

describe("dunning", () => {
  it("declined: trialing → active → past_due, retries 3, 5 and 7 days later, then the invoice is uncollectible and the subscription cancelled", async () => {
    const sandbox = await sandboxAccount();
    const { sub, trialEnd, renewed, invoiceId } = await trialEndedWith(sandbox, "pm_sandbox_declined");
    expect(renewed).toMatchObject({ status: "past_due", current_period_start: iso(trialEnd) });
    const failed = await sandbox.get(`/invoices/${invoiceId}`);
    expect(failed).toMatchObject({ status: "open", attempt_count: 1, next_payment_attempt: iso(plus(trialEnd, 3)), due_amount_atom: 2000 });
    const intent = await sandbox.get(`/payment-intents/${failed.payment_intent}`);
    expect(intent).toMatchObject({ status: "requires_payment_method", invoice: invoiceId });

    await sandbox.advance(plus(trialEnd, 8));

    const subEvents = await sandbox.timeline(sub.id);
    expect(subEvents.map((e) => [e.type, e.previous_data?.status ?? null, e.data.status, e.created])).toEqual([
      ["customer.subscription.created", null, "trialing", subEvents[0].created],
      ["customer.subscription.trial_will_end", null, "trialing", iso(plus(trialEnd, -3))],
      ["customer.subscription.updated", "trialing", "active", iso(trialEnd)],
      ["customer.subscription.updated", "active", "past_due", iso(trialEnd)],
      ["customer.subscription.cancelled", "past_due", "cancelled", iso(plus(trialEnd, 7))],
    ]);
    const cancelled = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelled_at: iso(plus(trialEnd, 7)), cancel_at_period_end: false });
    expect(subEvents[4].data).toEqual(cancelled);

    const invoiceEvents = await sandbox.timeline(invoiceId);
    expect(invoiceEvents.map((e) => [e.type, e.created])).toEqual([
      ["invoice.upcoming", iso(plus(trialEnd, -3))],
      ["invoice.created", iso(trialEnd)],
      ["invoice.finalized", iso(trialEnd)],
      ["invoice.payment_failed", iso(trialEnd)],
      ["invoice.payment_failed", iso(plus(trialEnd, 3))],
      ["invoice.payment_failed", iso(plus(trialEnd, 5))],
      ["invoice.payment_failed", iso(plus(trialEnd, 7))],
      ["invoice.marked_uncollectible", iso(plus(trialEnd, 7))],
    ]);
    // Each failure tells how many attempts were made and when the next one comes (Stripe's fields).
    expect(invoiceEvents.filter((e) => e.type === "invoice.payment_failed").map((e) => [e.data.attempt_count, e.data.next_payment_attempt])).toEqual([
      [1, iso(plus(trialEnd, 3))],
      [2, iso(plus(trialEnd, 5))],
      [3, iso(plus(trialEnd, 7))],
      [4, null],
    ]);
    const uncollectible = await sandbox.get(`/invoices/${invoiceId}`);
    expect(uncollectible).toMatchObject({
      status: "uncollectible",
      attempt_count: 4,
      next_payment_attempt: null,
      marked_uncollectible_at: iso(plus(trialEnd, 7)),
      due_amount_atom: 2000,
    });
    expect(invoiceEvents[7]).toMatchObject({ data: uncollectible, previous_data: { status: "open" } });
    const intents = (await sandbox.client.get(`/${sandbox.account}/payment-intents?customer=${sandbox.customer}`)).body.items;
    expect(intents).toHaveLength(4);

    // Cancelled: the next period end renews nothing.
    await sandbox.advance(plus(trialEnd, 40));
    expect((await sandbox.timeline(sub.id)).length).toBe(5);
    expect((await sandbox.client.get(`/${sandbox.account}/invoices?customer=${sandbox.customer}`)).body.total).toBe(1);
  });

  it("recovers: the merchant fixes default_payment_method, the next retry pays, past_due → active, and the next renewal is collected", async () => {
    const sandbox = await sandboxAccount();
    const { sub, trialEnd, renewed, invoiceId } = await trialEndedWith(sandbox, "pm_sandbox_declined");
    expect(renewed.status).toBe("past_due");

    await sandbox.advance(plus(trialEnd, 1));
    const fixed = await sandbox.client.post(`/${sandbox.account}/subscriptions/${sub.id}`, { default_payment_method: "pm_sandbox_succeeds" });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.body).toMatchObject({ status: "past_due", default_payment_method: "pm_sandbox_succeeds" });

    await sandbox.advance(plus(trialEnd, 4));
    const paid = await sandbox.get(`/invoices/${invoiceId}`);
    expect(paid).toMatchObject({ status: "paid", attempt_count: 2, next_payment_attempt: null, paid_at: iso(plus(trialEnd, 3)) });
    const active = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(active.status).toBe("active");
    const [last] = (await sandbox.timeline(sub.id)).slice(-1);
    expect(last).toMatchObject({
      type: "customer.subscription.updated",
      created: iso(plus(trialEnd, 3)),
      previous_data: { status: "past_due" },
      data: active,
    });
    expect((await sandbox.timeline(invoiceId)).map((e) => e.type).slice(-3)).toEqual([
      "invoice.payment_failed",
      "invoice.paid",
      "invoice.payment_succeeded",
    ]);

    // No more retries; the next month is collected with the fixed method.
    await sandbox.advance(new Date(new Date(active.current_period_end).getTime() + DAY));
    const next = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(next).toMatchObject({ status: "active", current_period_start: active.current_period_end });
    expect(await sandbox.get(`/invoices/${next.latest_invoice}`)).toMatchObject({ status: "paid", attempt_count: 1 });
    expect((await sandbox.get(`/invoices/${invoiceId}`)).attempt_count).toBe(2);
  });

  it("the merchant collects the invoice themselves while past_due: active at once, dunning stops", async () => {
    const sandbox = await sandboxAccount();
    const { sub, trialEnd, invoiceId } = await trialEndedWith(sandbox, "pm_sandbox_requires_action");
    expect((await sandbox.get(`/subscriptions/${sub.id}`)).status).toBe("past_due");
    expect((await sandbox.timeline(invoiceId)).map((e) => e.type)).toContain("invoice.payment_action_required");

    const paid = await sandbox.client.post(`/${sandbox.account}/invoices/${invoiceId}/pay`, { payment_method: "pm_sandbox_succeeds" });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", attempt_count: 1, next_payment_attempt: null });
    const subEvents = await sandbox.timeline(sub.id);
    expect(subEvents.at(-1)).toMatchObject({ type: "customer.subscription.updated", actor_type: "api_key", previous_data: { status: "past_due" }, data: { status: "active" } });

    await sandbox.advance(plus(trialEnd, 10));
    expect((await sandbox.get(`/invoices/${invoiceId}`)).attempt_count).toBe(1);
    expect((await sandbox.timeline(sub.id)).length).toBe(subEvents.length);
  });

  it("voiding the invoice in dunning makes the subscription active; cancelling a past_due one stops its retries", async () => {
    const sandbox = await sandboxAccount();
    const voided = await trialEndedWith(sandbox, "pm_sandbox_declined");
    const response = await sandbox.client.post(`/${sandbox.account}/invoices/${voided.invoiceId}/void`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ status: "void", next_payment_attempt: null, attempt_count: 1 });
    expect(await sandbox.get(`/subscriptions/${voided.sub.id}`)).toMatchObject({ status: "active" });

    const other = await sandbox.subscribe({ items: [{ price: await sandbox.price() }], trial_end: iso(plus(voided.trialEnd, 2)), default_payment_method: "pm_sandbox_declined" });
    await sandbox.advance(plus(other.trial_end, 1));
    const pastDue = await sandbox.get(`/subscriptions/${other.id}`);
    expect(pastDue.status).toBe("past_due");
    const cancel = await sandbox.client.post(`/${sandbox.account}/subscriptions/${other.id}/cancel`, {});
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body).toMatchObject({ status: "cancelled" });
    const invoice = await sandbox.get(`/invoices/${pastDue.latest_invoice}`);
    expect(invoice).toMatchObject({ status: "open", attempt_count: 1, next_payment_attempt: null });
    await sandbox.advance(plus(other.trial_end, 10));
    expect((await sandbox.get(`/invoices/${pastDue.latest_invoice}`)).attempt_count).toBe(1);
    expectProblem(await sandbox.client.post(`/${sandbox.account}/subscriptions/${other.id}/pause`), 409, /is cancelled/);
  });

  it("a past_due subscription set to cancel at period end: cancelled then, its invoice left open without retries", async () => {
    const sandbox = await sandboxAccount();
    const weekly = await sandbox.price({ interval: "week" });
    const sub = await sandbox.subscribe({ items: [{ price: weekly }], trial_period_days: 7, default_payment_method: "pm_sandbox_declined" });
    const trialEnd = new Date(sub.trial_end);
    await sandbox.advance(plus(trialEnd, 1));
    const flagged = await sandbox.client.post(`/${sandbox.account}/subscriptions/${sub.id}/cancel`, { at_period_end: true });
    expect(flagged.body).toMatchObject({ status: "past_due", cancel_at_period_end: true });

    // Retries at +3 and +5 fail; the period ends at +7, the instant of the last retry: the renewal runs first.
    await sandbox.advance(plus(trialEnd, 8));
    const cancelled = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelled_at: iso(plus(trialEnd, 7)), latest_invoice: flagged.body.latest_invoice });
    expect((await sandbox.timeline(sub.id)).at(-1)).toMatchObject({ type: "customer.subscription.cancelled", previous_data: { status: "past_due" } });
    const invoice = await sandbox.get(`/invoices/${cancelled.latest_invoice}`);
    expect(invoice).toMatchObject({ status: "open", attempt_count: 3, next_payment_attempt: null });
    expect((await sandbox.timeline(invoice.id)).map((e) => e.type)).not.toContain("invoice.marked_uncollectible");
  });

  it("past_due only pauses from active: 409; a past_due subscription keeps renewing, and giving up cancels all its retries", async () => {
    const sandbox = await sandboxAccount();
    const daily = await sandbox.price({ interval: "day" }, 100);
    const sub = await sandbox.subscribe({ items: [{ price: daily }], default_payment_method: "pm_sandbox_declined" });
    const start = new Date(sub.current_period_start);
    // The first invoice (at creation) is left for the merchant; renewals are collected automatically.
    expect(await sandbox.get(`/invoices/${sub.latest_invoice}`)).toMatchObject({ status: "open", attempt_count: 0, next_payment_attempt: null });

    await sandbox.advance(plus(start, 1.5));
    expect((await sandbox.get(`/subscriptions/${sub.id}`)).status).toBe("past_due");
    expectProblem(await sandbox.client.post(`/${sandbox.account}/subscriptions/${sub.id}/pause`), 409, /is past_due; only active/);

    // The first renewal's retries: days 4, 6, 8; renewals keep coming daily meanwhile, each failing.
    await sandbox.advance(plus(start, 8.5));
    const cancelled = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelled_at: iso(plus(start, 8)) });
    const invoices: Json[] = [...(await sandbox.client.get(`/${sandbox.account}/invoices?customer=${sandbox.customer}&limit=100`)).body.items].reverse();
    // Creation + renewals on days 1 to 8.
    expect(invoices).toHaveLength(9);
    expect(invoices[1]).toMatchObject({ status: "uncollectible", attempt_count: 4, created: iso(plus(start, 1)) });
    for (const invoice of invoices.slice(2)) expect(invoice).toMatchObject({ status: "open", next_payment_attempt: null });
    const subTypes = (await sandbox.timeline(sub.id)).map((e) => e.type);
    expect(subTypes.filter((t) => t === "customer.subscription.updated")).toHaveLength(8 + 1);
    expect(subTypes.at(-1)).toBe("customer.subscription.cancelled");
  });

  it("renewal without a default payment method: the invoice stays open for the merchant, no attempt, no dunning", async () => {
    const sandbox = await sandboxAccount();
    const sub = await sandbox.subscribe({ items: [{ price: await sandbox.price() }], trial_period_days: 3 });
    await sandbox.advance(plus(sub.trial_end, 10));
    const after = await sandbox.get(`/subscriptions/${sub.id}`);
    expect(after.status).toBe("active");
    const invoice = await sandbox.get(`/invoices/${after.latest_invoice}`);
    expect(invoice).toMatchObject({ status: "open", attempt_count: 0, next_payment_attempt: null, payment_intent: null });
    expect((await sandbox.timeline(invoice.id)).map((e) => e.type)).toEqual(["invoice.upcoming", "invoice.created", "invoice.finalized"]);
  });
});
