import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { connectStripe } from "../helpers/stripe-stand-in";
import { sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * Renewals and dunning retries charge a payment method saved for the customer (a `pm_…` of ours)
 * off-session through the processor that holds it (docs/payments.md, "Payment methods"): here a
 * sandbox account that connected Stripe test keys, so that its test clock can move the renewal,
 * against the api project's Stripe stand-in.
 */

const standIn = sharedStripeStandIn();
const TEST_KEYS = { processor: "stripe", secret_key: "sk_test_renewal_k3y5", publishable_key: "pk_test_renewal_k3y5" };
const DAY = 86_400_000;
/**
 * Background work answers after the request (the renewal's charge is sent from a pool, Stripe's
 * answer applied later): waits tell a hang from a busy machine, they do not time it.
 */
const WAIT_MS = 60_000;
const until = <T>(read: () => Promise<T>, accept: (value: T) => boolean) => eventually(read, accept, WAIT_MS);

async function stripeAccount() {
  const s = await newSandbox();
  await connectStripe(s.client, s.account, TEST_KEYS);
  const product = (await s.ok(s.client.post(`/${s.account}/products`, { name: "Plan" }))).id as string;
  const price = (await s.ok(
    s.client.post(`/${s.account}/prices`, { product, currency: "usd", unit_amount_atom: 2500, type: "recurring", recurring: { interval: "month" } }),
  )).id as string;
  const customer = async () => (await s.ok(s.client.post(`/${s.account}/customers`, { email: "renewal@example.com" }))).id as string;
  /** Saves a Stripe test card for the customer: our pm_ object around Stripe's saved method. */
  const save = async (customerId: string, card: string) =>
    s.ok(s.client.post(`/${s.account}/customers/${customerId}/payment-methods`, { processor_payment_method: card }));
  const subscribe = (customerId: string, method: string) =>
    s.ok(s.client.post(`/${s.account}/subscriptions`, { customer: customerId, items: [{ price }], default_payment_method: method }));
  const invoice = (id: string) => s.ok(s.client.get(`/${s.account}/invoices/${id}`));
  const advance = (to: number) => s.ok(s.client.post(`/${s.account}/test-clock/advance`, { to: new Date(to).toISOString() }));
  /** Stripe's PaymentIntents of one of our intents. */
  const atStripe = async (ourIntent: string) => (await standIn.state()).paymentIntents.filter((intent) => intent.metadata.payment_intent === ourIntent);
  const eventTypes = async (aggregateId: string) =>
    ((await s.ok(s.client.get(`/${s.account}/events?aggregate_id=${aggregateId}&limit=100`))).items as Json[]).map((event) => event.type as string);
  /** The merchant collects an open invoice with a saved method (`POST /invoices/{id}/pay`, off-session). */
  const pay = (invoiceId: string, method: string) => s.ok(s.client.post(`/${s.account}/invoices/${invoiceId}/pay`, { payment_method: method }));
  return { ...s, price, customer, save, subscribe, invoice, advance, atStripe, eventTypes, pay };
}

/** The invoice once the charge sent after its commit has been applied (a network processor answers after our transaction). */
async function settled(s: Awaited<ReturnType<typeof stripeAccount>>, invoiceId: string, status: string): Promise<Json> {
  return until(() => s.invoice(invoiceId), (invoice) => invoice.status === status);
}

/** A subscription with a saved Visa as its default method, its first invoice paid with it by the merchant. */
async function paidSubscription() {
  const s = await stripeAccount();
  const customer = await s.customer();
  const visa = await s.save(customer, "pm_card_visa");
  const subscription = await s.subscribe(customer, visa.id);
  await s.pay(subscription.latest_invoice, visa.id);
  await settled(s, subscription.latest_invoice, "paid");
  return { s, customer, visa, subscription };
}

describe("renewals charge a saved Stripe card off-session", () => {
  it("the merchant pays the first invoice with the saved card, and the renewal charges it by itself: one Stripe charge each, with Stripe's method and customer", async () => {
    const s = await stripeAccount();
    const customer = await s.customer();
    const method = await s.save(customer, "pm_card_visa");
    expect(method).toMatchObject({ processor: "stripe", card: { brand: "visa", last4: "4242" } });
    const subscription = await s.subscribe(customer, method.id);
    expect(subscription.default_payment_method).toBe(method.id);

    // Without a trial the first invoice is finalized open (docs/billing.md): the merchant collects it.
    await s.pay(subscription.latest_invoice, method.id);
    const first = await settled(s, subscription.latest_invoice, "paid");
    // Stripe slower than the advance's own steps: the renewal's charge is still out when the
    // advance has run the renewal's instant (this file holds the shared stand-in).
    await standIn.latency(300);
    try {
      await s.advance(Date.parse(subscription.current_period_end) + DAY);
    } finally {
      await standIn.latency(0);
    }
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`));
    expect(renewed.latest_invoice).not.toBe(subscription.latest_invoice);
    // The advance waited for the renewal's charge, sent after the renewal's commit from the
    // background pool, before it moved on (docs/rules/time.md): the invoice is paid when it answers.
    const renewal = await s.invoice(renewed.latest_invoice);
    expect(renewal).toMatchObject({ status: "paid", paid_amount_atom: 2500, due_amount_atom: 0, attempt_count: 1, next_payment_attempt: null });
    // A charge answered after the renewal's commit is not a failure: the subscription never left active.
    const statuses = ((await s.ok(s.client.get(`/${s.account}/events?aggregate_id=${subscription.id}&limit=100`))).items as Json[]).map((event) => event.data.status);
    expect(statuses).not.toContain("past_due");
    expect(await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`))).toMatchObject({ status: "active" });

    for (const paid of [first, renewal]) {
      const intent = await s.ok(s.client.get(`/${s.account}/payment-intents/${paid.payment_intent}`));
      // Our intent names our method; Stripe was given its own saved method and the customer that holds it.
      expect(intent).toMatchObject({ status: "succeeded", payment_method: method.id, amount_received_atom: 2500 });
      const charges = await s.atStripe(intent.id);
      expect(charges).toHaveLength(1);
      expect(charges[0]).toMatchObject({ status: "succeeded", amount: 2500, payment_method: method.processor_payment_method });
      expect(charges[0]!.customer).toMatch(/^cus_/);
    }
    expect(method.processor_payment_method).toMatch(/^pm_/);
    expect(method.processor_payment_method).not.toBe("pm_card_visa");
    // The renewal's charge was made by one request, sent once: the clock's jump of a day passes
    // the instant its reconciliation would fall due (15 minutes after it was recorded), but the
    // advance waited for its answer first, so nothing was left in flight to send again.
    const requests = (await standIn.state()).requests.filter((request) => request.path === "/v1/payment_intents" && request.idempotencyKey === `${renewal.payment_intent}-confirm-1`);
    expect(requests.map((request) => ({ status: request.status, replayed: request.replayed }))).toEqual([{ status: 200, replayed: false }]);
  }, 300_000);

  it("a renewal whose card needs authentication stays pending (requires_action, invoice.payment_action_required), not failed", async () => {
    const { s, customer, subscription } = await paidSubscription();
    const strict = await s.save(customer, "pm_card_authenticationRequired");
    await s.ok(s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: strict.id }));

    await s.advance(Date.parse(subscription.current_period_end) + DAY);
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`));
    const intent = await until(
      async () => {
        const invoice = await s.invoice(renewed.latest_invoice);
        return invoice.payment_intent ? s.ok(s.client.get(`/${s.account}/payment-intents/${invoice.payment_intent}`)) : {};
      },
      (read) => read.status === "requires_action",
    );
    expect(intent).toMatchObject({ payment_method: strict.id, last_payment_error: null });
    const types = await s.eventTypes(renewed.latest_invoice);
    expect(types).toContain("invoice.payment_action_required");
    expect(types).not.toContain("invoice.payment_failed");
    expect(await s.invoice(renewed.latest_invoice)).toMatchObject({ status: "open", due_amount_atom: 2500 });
  }, 300_000);

  it("a declined renewal feeds dunning; the retry with the card the merchant set then pays, once", async () => {
    const { s, customer, visa, subscription } = await paidSubscription();
    const declining = await s.save(customer, "pm_card_chargeDeclined");
    await s.ok(s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: declining.id }));

    const periodEnd = Date.parse(subscription.current_period_end);
    await s.advance(periodEnd + DAY);
    const renewed = await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`));
    const invoiceId = renewed.latest_invoice as string;
    await until(() => s.eventTypes(invoiceId), (types) => types.includes("invoice.payment_failed"));
    const subscriptionNow = () => s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`));
    await until(subscriptionNow, (read) => read.status === "past_due");
    const failed = await s.invoice(invoiceId);
    expect(failed).toMatchObject({ status: "open", attempt_count: 1, next_payment_attempt: expect.any(String) });

    // The merchant sets the good card again; dunning's next retry charges it, off-session, once.
    await s.ok(s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: visa.id }));
    await s.advance(Date.parse(failed.next_payment_attempt) + 1_000);
    const paid = await settled(s, invoiceId, "paid");
    expect(paid).toMatchObject({ attempt_count: 2, due_amount_atom: 0 });
    const intent = await s.ok(s.client.get(`/${s.account}/payment-intents/${paid.payment_intent}`));
    expect(intent).toMatchObject({ status: "succeeded", payment_method: visa.id });
    const succeeded = (await s.atStripe(intent.id)).filter((charge) => charge.status === "succeeded");
    expect(succeeded).toHaveLength(1);
    await until(subscriptionNow, (read) => read.status === "active");
  }, 300_000);
});

describe("dunning when Stripe answers after the attempt's commit", () => {
  it("every attempt declined: each failure arrives after its retry committed; after the last the invoice is uncollectible and the subscription cancelled", async () => {
    const { s, customer, subscription } = await paidSubscription();
    const declining = await s.save(customer, "pm_card_chargeDeclined");
    await s.ok(s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: declining.id }));

    await s.advance(Date.parse(subscription.current_period_end) + DAY);
    const invoiceId = (await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`))).latest_invoice as string;
    const failures = () => s.eventTypes(invoiceId).then((types) => types.filter((type) => type === "invoice.payment_failed").length);
    // The renewal's attempt, then the three retries, each moved to by the clock once the last failure arrived.
    for (let attempt = 1; attempt <= 4; attempt++) {
      if (attempt > 1) await s.advance(Date.parse((await s.invoice(invoiceId)).next_payment_attempt) + 1_000);
      await until(failures, (count) => count === attempt);
    }
    const given = await until(() => s.invoice(invoiceId), (invoice) => invoice.status === "uncollectible");
    expect(given).toMatchObject({ attempt_count: 4, next_payment_attempt: null, due_amount_atom: 2500 });
    expect(await s.ok(s.client.get(`/${s.account}/subscriptions/${subscription.id}`))).toMatchObject({ status: "cancelled" });
    const intent = await s.ok(s.client.get(`/${s.account}/payment-intents/${given.payment_intent}`));
    expect((await s.atStripe(intent.id)).filter((charge) => charge.status === "succeeded")).toHaveLength(0);
  }, 600_000);
});

describe("which saved methods a subscription may name", () => {
  it("refuses another customer's method, a detached one, and a Stripe method not saved for the customer: 422 naming the field, nothing changes", async () => {
    const s = await stripeAccount();
    const mine = await s.customer();
    const theirs = await s.customer();
    const theirMethod = await s.save(theirs, "pm_card_visa");
    const detached = await s.save(mine, "pm_card_mastercard");
    await s.ok(s.client.delete(`/${s.account}/customers/${mine}/payment-methods/${detached.id}`));

    for (const [method, message] of [
      [theirMethod.id, /saved for another customer/],
      [detached.id, /was detached/],
      ["pm_card_visa", /Unknown payment method 'pm_card_visa'/],
    ] as const) {
      const refused = await s.client.post(`/${s.account}/subscriptions`, { customer: mine, items: [{ price: s.price }], default_payment_method: method });
      expectProblem(refused, 422, message);
      expect(refused.body.errors?.[0]?.field ?? "default_payment_method").toBe("default_payment_method");
    }
    const listed = await s.ok(s.client.get(`/${s.account}/subscriptions?customer=${mine}`));
    expect(listed.items).toHaveLength(0);

    // A saved method of the customer, and a sandbox one on this sandbox account, are both accepted.
    const own = await s.save(mine, "pm_card_visa");
    const subscription = await s.subscribe(mine, own.id);
    const updated = await s.ok(s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: "pm_sandbox_succeeds" }));
    expect(updated.default_payment_method).toBe("pm_sandbox_succeeds");
    expectProblem(await s.client.post(`/${s.account}/subscriptions/${subscription.id}`, { default_payment_method: theirMethod.id }), 422, /saved for another customer/);
  });

  it("a payment intent confirmed with a saved method must be for its customer", async () => {
    const s = await stripeAccount();
    const owner = await s.customer();
    const other = await s.customer();
    const method = await s.save(owner, "pm_card_visa");
    expectProblem(
      await s.client.post(`/${s.account}/payment-intents`, { amount_atom: 900, currency: "usd", customer: other, payment_method: method.id, confirm: true }),
      422,
      /saved for another customer/,
    );
    expectProblem(
      await s.client.post(`/${s.account}/payment-intents`, { amount_atom: 900, currency: "usd", payment_method: method.id, confirm: true }),
      422,
      /must name that customer/,
    );
    const charged = await s.ok(s.client.post(`/${s.account}/payment-intents`, { amount_atom: 900, currency: "usd", customer: owner, payment_method: method.id, confirm: true }));
    const succeeded = await until(() => s.ok(s.client.get(`/${s.account}/payment-intents/${charged.id}`)), (read) => read.status === "succeeded");
    expect(succeeded.payment_method).toBe(method.id);
    expect((await s.atStripe(charged.id)).map((intent) => intent.payment_method)).toEqual([method.processor_payment_method]);
  });
});

describe("one advance renews many customers' subscriptions side by side (lib/clock/due.ts lanes)", () => {
  it("16 subscriptions of 8 customers due at one instant: each renewal invoice paid once, one Stripe charge each, every timeline in sequence, a customer's credit applied once across its subscriptions", async () => {
    const s = await stripeAccount();
    const clock = await s.ok(s.client.get(`/${s.account}/test-clock`));
    // One trial end for all: the renewals fall due at the same instant, so one stop of the clock runs them together.
    const trialEnd = new Date(Date.parse(clock.now) + 10 * DAY);
    trialEnd.setUTCMilliseconds(0);
    const customers: string[] = [];
    const subscriptionsOf = new Map<string, string[]>();
    for (let c = 0; c < 8; c++) {
      const customer = await s.customer();
      customers.push(customer);
      const visa = await s.save(customer, "pm_card_visa");
      // Four customers with three subscriptions each (they share the customer's balance), four with one.
      const ids: string[] = [];
      for (let n = 0; n < (c < 4 ? 3 : 1); n++) {
        const subscription = await s.ok(
          s.client.post(`/${s.account}/subscriptions`, { customer, items: [{ price: s.price }], default_payment_method: visa.id, trial_end: trialEnd.toISOString() }),
        );
        ids.push(subscription.id as string);
      }
      subscriptionsOf.set(customer, ids);
    }
    // The first customer's credit covers one renewal (2,500) and 500 of another: it must be used once, not once per renewal.
    const credited = customers[0]!;
    await s.ok(s.client.post(`/${s.account}/customers/${credited}/balance-transactions`, { amount_atom: 3000, currency: "usd", description: "Goodwill" }));

    const advanced = await s.advance(trialEnd.getTime() + DAY);
    const all = [...subscriptionsOf.values()].flat();
    expect(all).toHaveLength(16);
    // The trial_will_end and invoice.upcoming of each, then each renewal: all run by this advance.
    expect(advanced.transitions_run).toBe(16 * 3);

    const renewalInvoices = new Map<string, string>();
    for (const id of all) {
      const subscription = await s.ok(s.client.get(`/${s.account}/subscriptions/${id}`));
      expect(subscription).toMatchObject({ status: "active", current_period_start: trialEnd.toISOString() });
      renewalInvoices.set(id, subscription.latest_invoice as string);
    }
    const paid = new Map<string, Json>();
    for (const [id, invoiceId] of renewalInvoices) paid.set(id, await settled(s, invoiceId, "paid"));

    // What each invoice's finalization took from the customer's balance (starting → ending).
    const fromBalance = (invoice: Json) => Math.abs(Number(invoice.ending_balance_atom) - Number(invoice.starting_balance_atom));
    // The credited customer: 3,000 applied across its three renewals in all, not 3,000 to each; the ledger says the same.
    expect(subscriptionsOf.get(credited)!.reduce((sum, id) => sum + fromBalance(paid.get(id)!), 0)).toBe(3000);
    const ledger = (await s.ok(s.client.get(`/${s.account}/customers/${credited}/balance-transactions?limit=100`))).items as Json[];
    expect(ledger.filter((entry) => entry.type === "applied_to_invoice").reduce((sum, entry) => sum + Number(entry.amount_atom), 0)).toBe(-3000);
    for (const customer of customers.slice(1)) {
      for (const id of subscriptionsOf.get(customer)!) expect(fromBalance(paid.get(id)!)).toBe(0);
    }

    // Stripe: one succeeded charge of what was left to pay per renewal invoice, none twice; the one the credit covered, none.
    const state = await standIn.state();
    let charged = 0;
    for (const invoice of paid.values()) {
      expect(invoice.total_amount_atom).toBe(2500);
      const left = 2500 - fromBalance(invoice);
      const succeeded = state.paymentIntents.filter(
        (intent) => invoice.payment_intent !== null && intent.metadata.payment_intent === invoice.payment_intent && intent.status === "succeeded",
      );
      expect(succeeded.map((intent) => intent.amount)).toEqual(left === 0 ? [] : [left]);
      if (left > 0) charged++;
    }
    expect(charged).toBe(15);

    // Each timeline in sequence: 1, 2, 3… with no gap, and the list's order (created, then id) is the sequence's.
    const timeline = async (aggregateId: string) => {
      const events = ((await s.ok(s.client.get(`/${s.account}/events?aggregate_id=${aggregateId}&limit=100`))).items as Json[]).reverse();
      expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
      return events.map((event) => event.type as string);
    };
    for (const [id, invoiceId] of renewalInvoices) {
      const subscriptionTypes = await timeline(id);
      expect(subscriptionTypes.indexOf("customer.subscription.trial_will_end")).toBeGreaterThan(0);
      expect(subscriptionTypes.indexOf("customer.subscription.updated")).toBeGreaterThan(subscriptionTypes.indexOf("customer.subscription.trial_will_end"));
      const invoiceTypes = await timeline(invoiceId);
      expect(invoiceTypes.slice(0, 3)).toEqual(["invoice.upcoming", "invoice.created", "invoice.finalized"]);
      expect(invoiceTypes.filter((type) => type === "invoice.paid")).toHaveLength(1);
    }
    // Every renewal invoice numbered once, no two alike.
    const numbers = [...paid.values()].map((invoice) => invoice.number);
    expect(new Set(numbers).size).toBe(16);
  }, 600_000);
});
