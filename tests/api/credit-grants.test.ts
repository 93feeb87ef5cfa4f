import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { download, pdfText, printedMoney } from "../helpers/pdf";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";

/*
 * Credit grants (docs/billing.md, "Credit grants"; docs/rules/invoices.md, "Credit grants at
 * finalization"): over HTTP against the production build, on a sandbox account (its test clock
 * moves expiry and renewals).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let client: Client;
let token: string;
let account: string;
let product: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  token = merchant.sandboxSecret.token;
  client = api(token);
  account = merchant.sandboxAccountId;
  product = (await client.post(`/${account}/products`, { name: "Credits" })).body.id;
});

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

const path = (rest: string) => `/${account}${rest}` as `/${string}/credit-grants`;
const post = (rest: string, body: unknown = {}) => ok(client.post(path(rest), body));
const get = (rest: string) => ok(client.get(path(rest)));
const clockNow = async () => Date.parse((await get("/test-clock")).now);
const advanceTo = (at: number) => post("/test-clock/advance", { to: new Date(at).toISOString() });
const customer = async (email = `c${Math.random().toString(36).slice(2, 8)}@example.com`) => post("/customers", { email });
const grant = (customerId: string, extra: object = {}) =>
  post("/credit-grants", { customer: customerId, amount_atom: 1000, currency: "usd", category: "promotional", applies_to: "all", ...extra });
const draft = (customerId: string, lines: object[], currency = "usd") => post("/invoices", { customer: customerId, currency, lines });
const finalize = (invoiceId: string) => post(`/invoices/${invoiceId}/finalize`);
const line = (amount: number, extra: object = {}) => ({ unit_amount_atom: amount, quantity: 1, description: `Line ${amount}`, ...extra });

async function eventsOf(type: string, grantId: string): Promise<Json[]> {
  const page = await get(`/events?event_type=${type}&limit=100`);
  return page.items.filter((event: Json) => event.aggregate_id === grantId);
}

describe("create, read, list, void", () => {
  it("creates a grant with Stripe's defaults, reads and lists it, and voids it once", async () => {
    const { id: cus } = await customer();
    const now = await clockNow();
    const created = await grant(cus, { name: "Welcome credit", metadata: { campaign: "spring" } });
    expect(created).toMatchObject({
      object: "credit_grant",
      customer: cus,
      name: "Welcome credit",
      category: "promotional",
      currency: "usd",
      amount_atom: 1000,
      remaining_atom: 1000,
      applied_atom: 0,
      applies_to: "all",
      priority: 50,
      expires_at: null,
      status: "active",
      voided_at: null,
      metadata: { campaign: "spring" },
      livemode: false,
    });
    expect(created.id).toMatch(/^cg_/);
    // Effective from now on the account's clock.
    expect(Date.parse(created.effective_at)).toBeGreaterThanOrEqual(now);
    expect(await get(`/credit-grants/${created.id}`)).toEqual(created);
    // Also at the unscoped path the token's account answers.
    expect((await ok(client.get(`/credit-grants/${created.id}` as `/credit-grants`))).id).toBe(created.id);

    const other = await grant((await customer()).id, { amount_atom: 5 });
    const listed = await get(`/credit-grants?customer=${cus}`);
    expect(listed.items.map((item: Json) => item.id)).toEqual([created.id]);
    const all = await get("/credit-grants?limit=100");
    expect(all.items.map((item: Json) => item.id)).toEqual(expect.arrayContaining([created.id, other.id]));

    const voided = await post(`/credit-grants/${created.id}/void`);
    expect(voided).toMatchObject({ status: "voided", remaining_atom: 1000, voided_at: expect.any(String) });
    expectProblem(await client.post(path(`/credit-grants/${created.id}/void`), {}), 409, /voided/);
    expect(await eventsOf("credit_grant.created", created.id)).toHaveLength(1);
    const [voidEvent] = await eventsOf("credit_grant.voided", created.id);
    expect(voidEvent.data.status).toBe("voided");
    expect(voidEvent.previous_data.status).toBe("active");
    expectProblem(await client.get(path("/credit-grants/cg_test_00000000000000000000000000")), 404);
  });

  it("refuses bad input with a 4xx naming the field, creating nothing", async () => {
    const { id: cus } = await customer();
    const base = { customer: cus, amount_atom: 100, currency: "usd", category: "paid", applies_to: "all" };
    const refused = async (body: object, status: number, detail: RegExp) => expectProblem(await client.post(path("/credit-grants"), body), status, detail);
    await refused({ ...base, customer: "cus_test_00000000000000000000000000" }, 422, /No such customer/);
    await refused({ ...base, amount_atom: -5 }, 422, /greater than 0/);
    await refused({ ...base, amount_atom: 0 }, 422, /greater than 0/);
    await refused({ ...base, amount_atom: 1.5 }, 422, /integer/);
    await refused({ ...base, currency: "xyz" }, 422, /ISO 4217/);
    await refused({ ...base, category: "gift" }, 422, /category/);
    await refused({ ...base, priority: 101 }, 422, /priority/);
    await refused({ ...base, applies_to: { meters: [] } }, 422, /at least one meter/);
    await refused({ ...base, applies_to: { meters: ["mtr_test_00000000000000000000000000"] } }, 422, /No such meter/);
    const now = await clockNow();
    await refused({ ...base, effective_at: new Date(now + DAY).toISOString(), expires_at: new Date(now + HOUR).toISOString() }, 422, /after effective_at/);
    // Without effective_at: now, so an expiry in the past is refused too.
    await refused({ ...base, expires_at: new Date(now - HOUR).toISOString() }, 422, /after effective_at/);
    await refused({ amount_atom: 100, currency: "usd", category: "paid", applies_to: "all" }, 400, /customer/);
    expect((await get(`/credit-grants?customer=${cus}`)).items).toEqual([]);
  });
});

describe("at finalization", () => {
  it("pays the lines before the balance, by priority then the earliest expiry, in the invoice's currency only, never exclusive taxes", async () => {
    const { id: cus } = await customer();
    const now = await clockNow();
    const first = await grant(cus, { amount_atom: 300, priority: 10 });
    const later = await grant(cus, { amount_atom: 1000 });
    const sooner = await grant(cus, { amount_atom: 500, expires_at: new Date(now + 30 * DAY).toISOString() });
    const euros = await grant(cus, { amount_atom: 1000, currency: "eur" });
    const future = await grant(cus, { amount_atom: 1000, priority: 0, effective_at: new Date(now + 300 * DAY).toISOString() });
    const invoice = await draft(cus, [line(600), line(400)]);
    const paid = await finalize(invoice.id);
    // 300 from the priority-10 grant, 500 from the sooner-expiring one, then 200 of the other.
    expect(paid.credits_applied).toEqual([
      { credit_grant: first.id, line: invoice.lines[0].id, amount_atom: 300 },
      { credit_grant: sooner.id, line: invoice.lines[0].id, amount_atom: 300 },
      { credit_grant: sooner.id, line: invoice.lines[1].id, amount_atom: 200 },
      { credit_grant: later.id, line: invoice.lines[1].id, amount_atom: 200 },
    ]);
    expect(paid).toMatchObject({ total_credits_applied_atom: 1000, total_amount_atom: 0, due_amount_atom: 0, status: "paid" });
    expect(await get(`/credit-grants/${first.id}`)).toMatchObject({ status: "depleted", remaining_atom: 0, applied_atom: 300 });
    expect(await get(`/credit-grants/${sooner.id}`)).toMatchObject({ status: "depleted", remaining_atom: 0 });
    expect(await get(`/credit-grants/${later.id}`)).toMatchObject({ status: "active", remaining_atom: 800 });
    expect(await get(`/credit-grants/${euros.id}`)).toMatchObject({ remaining_atom: 1000 });
    expect(await get(`/credit-grants/${future.id}`)).toMatchObject({ remaining_atom: 1000 });
    const ledger = await get(`/credit-grants/${sooner.id}/applications`);
    expect(ledger.items.map((entry: Json) => [entry.invoice, entry.line, entry.amount_atom])).toEqual([
      [invoice.id, invoice.lines[0].id, 300],
      [invoice.id, invoice.lines[1].id, 200],
    ]);
    expect(await eventsOf("credit_grant.applied", first.id)).toHaveLength(1);
    expect(await eventsOf("credit_grant.depleted", first.id)).toHaveLength(1);
    expect(await eventsOf("credit_grant.depleted", later.id)).toHaveLength(0);

    // Exclusive tax stays due; the balance meets the total after credits.
    const vat = await post("/tax-rates", { display_name: "VAT", percentage: 10, inclusive: false });
    await post(`/customers/${cus}/balance-transactions`, { amount_atom: 50, currency: "usd", description: "Goodwill" });
    const taxed = await finalize((await draft(cus, [line(1000, { tax_rates: [vat.id] })])).id);
    expect(taxed).toMatchObject({
      subtotal_atom: 1000,
      tax_atom: 100,
      total_credits_applied_atom: 800,
      total_amount_atom: 1000 + 100 - 800,
      starting_balance_atom: 50,
      ending_balance_atom: 0,
      due_amount_atom: 300 - 50,
      status: "open",
    });
    expect(await get(`/credit-grants/${later.id}`)).toMatchObject({ status: "depleted", remaining_atom: 0 });
    // The hosted page and the PDF print the credits applied.
    const hosted = await fetch(taxed.hosted_invoice_url);
    expect(await hosted.text()).toContain("Credits applied");
    const printed = pdfText((await download(taxed.invoice_pdf, token)).bytes);
    expect(printed).toContain(`Credits applied ${printedMoney(-800, "USD", "en")}`);
    // The EUR grant pays a EUR invoice.
    const inEuros = await finalize((await draft(cus, [line(250)], "eur")).id);
    expect(inEuros.credits_applied).toEqual([{ credit_grant: euros.id, line: inEuros.lines[0].id, amount_atom: 250 }]);
  });

  it("a meter-scoped grant pays only that meter's metered lines", async () => {
    const { id: cus } = await customer();
    const meter = await post("/meters", { event_name: `calls_${Date.now()}`, display_name: "Calls", aggregation: "sum" });
    const otherMeter = await post("/meters", { event_name: `other_${Date.now()}`, display_name: "Other", aggregation: "sum" });
    const metered = (meterId: string, unit: number) =>
      post("/prices", { product, currency: "usd", type: "recurring", unit_amount_atom: unit, recurring: { interval: "month", usage_type: "metered", meter: meterId } });
    const calls = await metered(meter.id, 10);
    const others = await metered(otherMeter.id, 3);
    const seat = await post("/prices", { product, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } });
    const scoped = await grant(cus, { amount_atom: 10_000, applies_to: { meters: [meter.id] } });
    expect(scoped.applies_to).toEqual({ meters: [meter.id] });
    const subscription = await post("/subscriptions", { customer: cus, items: [{ price: seat.id }, { price: calls.id }, { price: others.id }] });
    // The first invoice bills the seat only: the scoped grant does not pay it.
    expect(await get(`/invoices/${subscription.latest_invoice}`)).toMatchObject({ total_credits_applied_atom: 0, credits_applied: [] });
    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    await advanceTo(start + HOUR);
    const send = (eventName: string, identifier: string, value: number) =>
      post("/usage-events", { event_name: eventName, customer: cus, identifier, timestamp: Math.floor((start + MINUTE) / 1000), payload: { value } });
    await send(meter.event_name, `a_${Date.now()}`, 7);
    await send(otherMeter.event_name, `b_${Date.now()}`, 5);
    await advanceTo(end + 2 * HOUR);
    const renewed = await get(`/subscriptions/${subscription.id}`);
    const invoice = await get(`/invoices/${renewed.latest_invoice}`);
    const callsLine = invoice.lines.find((l: Json) => l.price === calls.id);
    expect(callsLine.amount_atom).toBe(70);
    expect(invoice.credits_applied).toEqual([{ credit_grant: scoped.id, line: callsLine.id, amount_atom: 70 }]);
    expect(invoice.total_amount_atom).toBe(invoice.subtotal_atom - 70);
    expect(await get(`/credit-grants/${scoped.id}`)).toMatchObject({ remaining_atom: 10_000 - 70 });
  });

  it("expiry on the test clock emits credit_grant.expired and stops application; a voided grant pays nothing", async () => {
    const { id: cus } = await customer();
    const now = await clockNow();
    const expiring = await grant(cus, { amount_atom: 400, expires_at: new Date(now + DAY).toISOString() });
    const voided = await grant(cus, { amount_atom: 400, priority: 0 });
    await post(`/credit-grants/${voided.id}/void`);
    await advanceTo(now + 2 * DAY);
    const expired = await eventually(
      () => get(`/credit-grants/${expiring.id}`),
      (row) => row.status === "expired",
    );
    expect(expired).toMatchObject({ remaining_atom: 400, expired_at: expect.any(String) });
    const [event] = await eventually(
      () => eventsOf("credit_grant.expired", expiring.id),
      (list) => list.length === 1,
    );
    expect(event.actor_type).toBe("system");
    const invoice = await finalize((await draft(cus, [line(500)])).id);
    expect(invoice).toMatchObject({ total_credits_applied_atom: 0, total_amount_atom: 500, credits_applied: [] });
    expect((await get(`/credit-grants/${voided.id}`)).remaining_atom).toBe(400);
  });

  it("voiding an invoice gives the credit back to its grants (depleted → active, credit_grant.reinstated), except to a grant voided meanwhile", async () => {
    const { id: cus } = await customer();
    const kept = await grant(cus, { amount_atom: 600, priority: 10 });
    const lost = await grant(cus, { amount_atom: 300, priority: 20 });
    const paid = await finalize((await draft(cus, [line(1000)])).id);
    expect(paid.total_credits_applied_atom).toBe(900);
    expect(await get(`/credit-grants/${kept.id}`)).toMatchObject({ status: "depleted", remaining_atom: 0 });
    await post(`/credit-grants/${lost.id}/void`);

    const voided = await post(`/invoices/${paid.id}/void`);
    expect(voided.status).toBe("void");
    // The kept grant is whole again; the voided one's 300 stays used (it no longer applies anyway).
    expect(await get(`/credit-grants/${kept.id}`)).toMatchObject({ status: "active", remaining_atom: 600, applied_atom: 0 });
    expect(await get(`/credit-grants/${lost.id}`)).toMatchObject({ status: "voided", remaining_atom: 0 });
    const reinstated = await eventsOf("credit_grant.reinstated", kept.id);
    expect(reinstated).toHaveLength(1);
    expect(reinstated[0]!.previous_data).toMatchObject({ status: "depleted", remaining_atom: 0 });
    expect(await eventsOf("credit_grant.reinstated", lost.id)).toHaveLength(0);
    const ledger = (await get(`/credit-grants/${kept.id}/applications`)).items as Json[];
    expect(ledger.map((row) => [row.invoice, row.amount_atom, typeof row.reinstated_at])).toEqual([[paid.id, 600, "string"]]);
    expect(((await get(`/credit-grants/${lost.id}/applications`)).items as Json[]).map((row) => row.reinstated_at)).toEqual([null]);

    // The credit given back pays the next invoice.
    const next = await finalize((await draft(cus, [line(250)])).id);
    expect(next).toMatchObject({ total_credits_applied_atom: 250, total_amount_atom: 0 });
    expect(await get(`/credit-grants/${kept.id}`)).toMatchObject({ remaining_atom: 350 });
  });

  it("is exact under concurrency: two invoices finalized at once never take more than the grant", async () => {
    const ROUNDS = 12;
    for (let round = 0; round < ROUNDS; round++) {
      const { id: cus } = await customer();
      const { id: grantId } = await grant(cus, { amount_atom: 1000 });
      const drafts = await Promise.all([draft(cus, [line(700)]), draft(cus, [line(700)]), draft(cus, [line(450)])]);
      const finalized = await Promise.all(drafts.map((invoice) => finalize(invoice.id)));
      const applied = finalized.reduce((sum, invoice) => sum + invoice.total_credits_applied_atom, 0);
      expect(applied).toBe(1000);
      for (const invoice of finalized) expect(invoice.total_amount_atom).toBe(invoice.subtotal_atom - invoice.total_credits_applied_atom);
      const after = await get(`/credit-grants/${grantId}`);
      expect(after).toMatchObject({ remaining_atom: 0, status: "depleted" });
      const ledger = await get(`/credit-grants/${grantId}/applications`);
      expect(ledger.items.reduce((sum: number, entry: Json) => sum + entry.amount_atom, 0)).toBe(1000);
      expect(await eventsOf("credit_grant.depleted", grantId)).toHaveLength(1);
    }
  });
});
