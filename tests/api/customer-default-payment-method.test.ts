import { describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { apiDatabase } from "../helpers/api-database";
import { newSandbox } from "../helpers/merchant";
import { monthlyPrice } from "../helpers/portal";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { newStripeSandbox, sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

/*
 * The customer's default payment method (docs/payments.md, "The customer's default payment
 * method"): set on the customer, refused unless it is one of their attached methods, cleared when
 * detached, charged when a subscription or invoice has no method of its own (renewal, dunning
 * retry, `POST /invoices/{id}/pay` without one) on the sandbox and through Stripe (the stand-in);
 * and `payment_method.updated`, from the merchant's update and from Stripe's card updater.
 */

const standIn = sharedStripeStandIn();
const DAY = 86_400_000;
/** Background work (a Stripe charge, a stored webhook's job) answers after the request: waits tell a hang from a busy machine. */
const WAIT_MS = 60_000;

const sql = apiDatabase();

async function account(options: { stripe?: boolean } = {}) {
  const s = options.stripe ? await newStripeSandbox("cdpm") : { ...(await newSandbox()), endpoint: null };
  const price = await monthlyPrice(s.client, s.account, 2500);
  const customer = async () => (await s.ok(s.client.post(`/${s.account}/customers`, { email: "default@example.com" }))).id as string;
  const save = (customerId: string, method: string) => s.ok(s.client.post(`/${s.account}/customers/${customerId}/payment-methods`, { processor_payment_method: method }));
  const getCustomer = (customerId: string) => s.ok(s.client.get(`/${s.account}/customers/${customerId}`));
  const setDefault = (customerId: string, method: string | null) => s.client.post(`/${s.account}/customers/${customerId}`, { default_payment_method: method });
  const events = async (aggregateId: string, type?: string) =>
    ((await s.ok(s.client.get(`/${s.account}/events?aggregate_id=${aggregateId}&limit=100`))).items as Json[]).filter((event) => type === undefined || event.type === type);
  const invoice = (id: string) => s.ok(s.client.get(`/${s.account}/invoices/${id}`));
  const advance = (to: number) => s.ok(s.client.post(`/${s.account}/test-clock/advance`, { to: new Date(to).toISOString() }));
  const subscription = (id: string) => s.ok(s.client.get(`/${s.account}/subscriptions/${id}`));
  return { ...s, price, customer, save, getCustomer, setDefault, events, invoice, advance, subscription };
}

describe("the customer's default payment method", () => {
  it("the first attached method becomes the default (customer.updated); the merchant sets another, clears it, and is refused anything but an attached method of that customer", async () => {
    const s = await account();
    const customer = await s.customer();
    expect((await s.getCustomer(customer)).default_payment_method).toBeNull();
    const first = await s.save(customer, "pm_sandbox_succeeds");
    expect((await s.getCustomer(customer)).default_payment_method).toBe(first.id);
    // A second method does not replace it.
    const second = await s.save(customer, "pm_sandbox_declined");
    expect((await s.getCustomer(customer)).default_payment_method).toBe(first.id);
    const updates = await s.events(customer, "customer.updated");
    expect(updates).toHaveLength(1);
    expect(updates[0]!.data.default_payment_method).toBe(first.id);
    expect(updates[0]!.previous_data.default_payment_method).toBeNull();

    const set = await s.setDefault(customer, second.id);
    expect(set.status, set.text).toBe(200);
    expect(set.body.default_payment_method).toBe(second.id);
    // The same value again changes nothing and emits nothing.
    expect((await s.setDefault(customer, second.id)).status).toBe(200);
    expect(await s.events(customer, "customer.updated")).toHaveLength(2);

    // Refused, on the field, and nothing changes: a sandbox token, an unknown pm_, another customer's, a detached one.
    const stranger = await s.customer();
    const theirs = await s.save(stranger, "pm_sandbox_succeeds");
    const leaving = await s.save(customer, "pm_sandbox_requires_action");
    expect((await s.client.delete(`/${s.account}/customers/${customer}/payment-methods/${leaving.id}`)).status).toBe(200);
    for (const refused of ["pm_sandbox_succeeds", `pm_prod_${"0".repeat(29)}`, theirs.id, leaving.id]) {
      const response = await s.setDefault(customer, refused);
      expectProblem(response, 422);
      expect(response.body.errors).toEqual([{ field: "default_payment_method", message: expect.stringContaining(refused) }]);
    }
    expectProblem(await s.setDefault(customer, ""), 422, /default_payment_method/);
    expect((await s.getCustomer(customer)).default_payment_method).toBe(second.id);
    expect(await s.events(customer, "customer.updated")).toHaveLength(2);

    const cleared = await s.setDefault(customer, null);
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.default_payment_method).toBeNull();
    expect(await s.events(customer, "customer.updated")).toHaveLength(3);
  });

  it("detaching the default clears it (customer.updated); detaching another method leaves it", async () => {
    const s = await account();
    const customer = await s.customer();
    const kept = await s.save(customer, "pm_sandbox_succeeds");
    const other = await s.save(customer, "pm_sandbox_declined");
    expect((await s.client.delete(`/${s.account}/customers/${customer}/payment-methods/${other.id}`)).status).toBe(200);
    expect((await s.getCustomer(customer)).default_payment_method).toBe(kept.id);
    expect(await s.events(customer, "customer.updated")).toHaveLength(1);

    expect((await s.client.delete(`/${s.account}/customers/${customer}/payment-methods/${kept.id}`)).status).toBe(200);
    expect((await s.getCustomer(customer)).default_payment_method).toBeNull();
    const updates = await s.events(customer, "customer.updated");
    expect(updates).toHaveLength(2);
    expect(updates[0]!.previous_data.default_payment_method).toBe(kept.id);
    expect(updates[0]!.data.default_payment_method).toBeNull();
    // Nothing falls back to another method: attaching one again makes it the default (none now).
    const again = await s.save(customer, "pm_sandbox_succeeds");
    expect((await s.getCustomer(customer)).default_payment_method).toBe(again.id);
  });

  it("POST /invoices/{id}/pay without a method charges the customer's default; without one it is a 422", async () => {
    const s = await account();
    const customer = await s.customer();
    const makeInvoice = async () => {
      const draft = await s.ok(s.client.post(`/${s.account}/invoices`, { customer, currency: "usd" }));
      await s.ok(s.client.post(`/${s.account}/invoices/${draft.id}/lines`, { description: "Setup", quantity: 1, unit_amount_atom: 900 }));
      return (await s.ok(s.client.post(`/${s.account}/invoices/${draft.id}/finalize`, {}))).id as string;
    };
    const bare = await makeInvoice();
    expectProblem(await s.client.post(`/${s.account}/invoices/${bare}/pay`, {}), 422, /default_payment_method/);
    expect((await s.invoice(bare)).status).toBe("open");

    const method = await s.save(customer, "pm_sandbox_succeeds");
    const paid = await s.client.post(`/${s.account}/invoices/${bare}/pay`, {});
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: "paid", paid_amount_atom: 900 });
    const intent = await s.ok(s.client.get(`/${s.account}/payment-intents/${paid.body.payment_intent}`));
    expect(intent).toMatchObject({ status: "succeeded", payment_method: method.id, customer });
  });

  it("a renewal and its dunning retry charge the customer's default when the subscription has none (sandbox)", async () => {
    const s = await account();
    const customer = await s.customer();
    const declined = await s.save(customer, "pm_sandbox_declined");
    const good = await s.save(customer, "pm_sandbox_succeeds");
    expect((await s.getCustomer(customer)).default_payment_method).toBe(declined.id);
    const sub = await s.ok(s.client.post(`/${s.account}/subscriptions`, { customer, items: [{ price: s.price }], trial_period_days: 7 }));
    expect(sub.default_payment_method).toBeNull();
    const trialEnd = Date.parse(sub.trial_end);
    await s.advance(trialEnd + 3_600_000);
    const renewed = await s.subscription(sub.id);
    expect(renewed.status).toBe("past_due");
    const failed = await s.invoice(renewed.latest_invoice);
    expect(failed).toMatchObject({ status: "open", attempt_count: 1 });
    const firstIntent = await s.ok(s.client.get(`/${s.account}/payment-intents/${failed.payment_intent}`));
    // Charged (without a method there is no intent, as in Stripe), declined: the intent's method is cleared, as Stripe's.
    expect(firstIntent).toMatchObject({ status: "requires_payment_method", invoice: renewed.latest_invoice, customer });

    // The merchant makes the good card the customer's default: the first retry (3 days later) pays with it.
    expect((await s.setDefault(customer, good.id)).status).toBe(200);
    await s.advance(trialEnd + 3 * DAY + 7_200_000);
    const retried = await s.invoice(renewed.latest_invoice);
    expect(retried).toMatchObject({ status: "paid", attempt_count: 2 });
    const retryIntent = await s.ok(s.client.get(`/${s.account}/payment-intents/${retried.payment_intent}`));
    expect(retryIntent).toMatchObject({ status: "succeeded", payment_method: good.id });
    expect((await s.subscription(sub.id)).status).toBe("active");

    // The subscription's own method comes first when it has one.
    const own = await s.save(customer, "pm_sandbox_requires_action");
    await s.ok(s.client.post(`/${s.account}/subscriptions/${sub.id}`, { default_payment_method: own.id }));
    await s.advance(Date.parse(renewed.current_period_end) + 3_600_000);
    const next = await s.subscription(sub.id);
    const nextInvoice = await s.invoice(next.latest_invoice);
    const nextIntent = await s.ok(s.client.get(`/${s.account}/payment-intents/${nextInvoice.payment_intent}`));
    expect(nextIntent.payment_method).toBe(own.id);
  });
});

describe("updating a payment method", () => {
  it("metadata and a new expiry: one payment_method.updated; the same again emits nothing; bad input is refused", async () => {
    const s = await account();
    const customer = await s.customer();
    const method = await s.save(customer, "pm_sandbox_succeeds");
    const path = `/${s.account}/customers/${customer}/payment-methods/${method.id}` as const;
    const updated = await s.client.post(path, { metadata: { label: "office" }, card: { exp_month: 4, exp_year: 2036 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ ...method, metadata: { label: "office" }, card: { ...method.card, exp_month: 4, exp_year: 2036 } });
    expect((await s.client.post(path, { metadata: { label: "office" }, card: { exp_month: 4 } })).status).toBe(200);
    const events = await s.events(method.id, "payment_method.updated");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual(updated.body);
    expect(events[0]!.previous_data).toEqual(method);
    const listed = (await s.ok(s.client.get(`/${s.account}/customers/${customer}/payment-methods`))).items as Json[];
    expect(listed).toEqual([updated.body]);

    expectProblem(await s.client.post(path, { card: { exp_month: 13 } }), 422, /exp_month/);
    expectProblem(await s.client.post(path, { brand: "amex" }), 422, /brand/);
    const stranger = await s.customer();
    expectProblem(await s.client.post(`/${s.account}/customers/${stranger}/payment-methods/${method.id}`, { metadata: { a: "b" } }), 404);
    expect((await s.client.delete(path)).status).toBe(200);
    expectProblem(await s.client.post(path, { metadata: { a: "b" } }), 404);
    expect(await s.events(method.id, "payment_method.updated")).toHaveLength(1);
  });
});

describe("through Stripe (the stand-in)", () => {
  it("a renewal and POST /invoices/{id}/pay without a method charge the customer's default Stripe card off-session", async () => {
    const s = await account({ stripe: true });
    const customer = await s.customer();
    const visa = await s.save(customer, "pm_card_visa");
    expect((await s.getCustomer(customer)).default_payment_method).toBe(visa.id);
    const sub = await s.ok(s.client.post(`/${s.account}/subscriptions`, { customer, items: [{ price: s.price }] }));
    expect(sub.default_payment_method).toBeNull();
    const paid = await s.client.post(`/${s.account}/invoices/${sub.latest_invoice}/pay`, {});
    expect(paid.status, paid.text).toBe(200);
    const first = await eventually(() => s.invoice(sub.latest_invoice), (invoice) => invoice.status === "paid", WAIT_MS);

    await s.advance(Date.parse(sub.current_period_end) + DAY);
    const renewed = await s.subscription(sub.id);
    expect(renewed.latest_invoice).not.toBe(sub.latest_invoice);
    const renewal = await eventually(() => s.invoice(renewed.latest_invoice), (invoice) => invoice.status === "paid", WAIT_MS);
    for (const invoice of [first, renewal]) {
      const intent = await s.ok(s.client.get(`/${s.account}/payment-intents/${invoice.payment_intent}`));
      expect(intent).toMatchObject({ status: "succeeded", payment_method: visa.id });
      const charges = (await standIn.state()).paymentIntents.filter((atStripe) => atStripe.metadata.payment_intent === intent.id);
      expect(charges).toHaveLength(1);
      expect(charges[0]).toMatchObject({ status: "succeeded", amount: 2500, payment_method: visa.processor_payment_method });
    }
  }, 300_000);

  it("Stripe's card updater (payment_method.automatically_updated) → payment_method.updated once; a duplicate delivery and the same details again change nothing", async () => {
    const s = await account({ stripe: true });
    const customer = await s.customer();
    const visa = await s.save(customer, "pm_card_visa");
    const reference = visa.processor_payment_method as string;
    await standIn.endpointDelivery(s.endpoint!, { duplicate: true });
    try {
      await standIn.cardUpdater(reference, { exp_month: 8, exp_year: 2039, last4: "1881" });
    } finally {
      await standIn.endpointDelivery(s.endpoint!, { duplicate: false });
    }
    const applied = async () =>
      sql`SELECT event_id, status FROM processor_events WHERE account_id = ${s.account} AND type = 'payment_method.automatically_updated' AND object_reference = ${reference} ORDER BY received`;
    const first = await eventually(applied, (rows) => rows.length === 1 && rows[0]!.status !== "pending", WAIT_MS);
    // Stored once (the duplicate was the same Stripe event), applied: our method has the new card.
    expect(first[0]!.status).toBe("applied");
    const updated = await s.events(visa.id, "payment_method.updated");
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data.card).toEqual({ brand: "visa", last4: "1881", exp_month: 8, exp_year: 2039 });
    expect(updated[0]!.previous_data.card).toEqual(visa.card);
    const listed = (await s.ok(s.client.get(`/${s.account}/customers/${customer}/payment-methods`))).items as Json[];
    expect(listed[0]!.card).toEqual({ brand: "visa", last4: "1881", exp_month: 8, exp_year: 2039 });

    // A second event with the card as it already is: re-read, the same details, no event.
    await standIn.cardUpdater(reference, { exp_month: 8 });
    const both = await eventually(applied, (rows) => rows.length === 2 && rows.every((row) => row.status !== "pending"), WAIT_MS);
    expect(both[1]!.status).toBe("ignored");
    expect(await s.events(visa.id, "payment_method.updated")).toHaveLength(1);
  }, 120_000);

  it("the merchant's new expiry is sent to Stripe; Stripe's own payment_method.updated webhook then changes nothing", async () => {
    const s = await account({ stripe: true });
    const customer = await s.customer();
    const visa = await s.save(customer, "pm_card_visa");
    const path = `/${s.account}/customers/${customer}/payment-methods/${visa.id}` as const;
    const updated = await s.client.post(path, { card: { exp_month: 2, exp_year: 2040 } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.card).toEqual({ ...visa.card, exp_month: 2, exp_year: 2040 });
    const requests = (await standIn.state()).requests.filter((request) => request.method === "POST" && request.path === `/v1/payment_methods/${visa.processor_payment_method}`);
    expect(requests).toHaveLength(1);
    const rows = await eventually(
      async () => sql`SELECT status FROM processor_events WHERE account_id = ${s.account} AND type = 'payment_method.updated' AND object_reference = ${visa.processor_payment_method}`,
      (found) => found.length === 1 && found[0]!.status !== "pending",
      WAIT_MS,
    );
    expect(rows[0]!.status).toBe("ignored");
    expect(await s.events(visa.id, "payment_method.updated")).toHaveLength(1);
    // Stripe refuses an expiry in the past: a 422 on card, nothing changed.
    expectProblem(await s.client.post(path, { card: { exp_year: 2001 } }), 422, /card/);
    expect(await s.events(visa.id, "payment_method.updated")).toHaveLength(1);
  }, 120_000);
});
