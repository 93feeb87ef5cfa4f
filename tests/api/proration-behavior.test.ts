import { beforeAll, describe, expect, it } from "vitest";
import { lineRange } from "@/lib/time";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/* Proration both ways (docs/billing.md, "Proration both ways"): `proration_behavior` on change requests. */

const CBTXN = /^cbtxn_prod_[0-9a-z]{29}$/;

let client: Client;
let account: string;
const prices: Record<"basic" | "pro" | "addon", string> = { basic: "", pro: "", addon: "" };

beforeAll(async () => {
  const merchant = await newMerchant();
  client = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id as string;
  for (const [name, amount] of [["basic", 1000], ["pro", 3000], ["addon", 500]] as const) {
    const response = await client.post(`/${account}/prices`, { product, currency: "usd", type: "recurring", recurring: { interval: "month" }, unit_amount_atom: amount });
    expect(response.status, response.text).toBe(201);
    prices[name] = response.body.id;
  }
});

async function subscribe(items: Json[]): Promise<Json> {
  const customer = (await client.post(`/${account}/customers`, { email: "proration@example.com" })).body.id;
  const response = await client.post(`/${account}/subscriptions`, { customer, items });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const requests = (sub: Json) => `/${account}/subscriptions/${sub.id}/change-requests` as const;

async function createRequest(sub: Json, steps: Json[], extra: Json = {}): Promise<Json> {
  const response = await client.post(requests(sub), { steps, ...extra });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const apply = (sub: Json, scr: Json, body?: Json) => client.post(`${requests(sub)}/${scr.id}/apply`, body);
const getRequest = async (sub: Json, scr: Json) => (await client.get(`${requests(sub)}/${scr.id}`)).body;
const balancesOf = async (sub: Json) => (await client.get(`/${account}/customers/${sub.customer}`)).body.balances;
const ledgerOf = async (sub: Json) => (await client.get(`/${account}/customers/${sub.customer}/balance-transactions?limit=100`)).body.items as Json[];
const invoicesOf = async (sub: Json) => (await client.get(`/${account}/invoices?customer=${sub.customer}&limit=100`)).body.items as Json[];

/** The spec's arithmetic, independently: floor(|Δ| × remaining / length), with Δ's sign. */
function expectedProration(sub: Json, prorationDate: string, delta: number): number {
  const start = Date.parse(sub.current_period_start);
  const end = Date.parse(sub.current_period_end);
  const remaining = Math.min(Math.max(0, end - Date.parse(prorationDate)), end - start);
  const magnitude = Number((BigInt(Math.abs(delta)) * BigInt(remaining)) / BigInt(end - start));
  return delta < 0 ? -magnitude : magnitude;
}

describe("a net decrease with create_prorations (the default)", () => {
  it("shows the credit before it is applied, then credits exactly that to the balance once, linked to the change request", async () => {
    const sub = await subscribe([{ price: prices.pro }]);
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.basic }]);
    const credit = -expectedProration(sub, scr.proration_date, 1000 - 3000);
    expect(credit).toBeGreaterThan(1900); // most of the period is left
    expect(scr).toMatchObject({
      status: "open",
      proration_behavior: "create_prorations",
      amount_due_now_atom: 0,
      proration_amount_atom: -credit,
      proration_credit_atom: credit,
      next_invoice_amount_atom: 1000,
      balance_transaction: null,
    });
    // Before apply: the preview is all there is; the balance is untouched.
    expect(await getRequest(sub, scr)).toEqual(scr);
    expect(await balancesOf(sub)).toEqual({});

    const applied = await apply(sub, scr);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ status: "applied", invoice: null, proration_amount_atom: -credit, balance_transaction: expect.stringMatching(CBTXN) });
    expect(await balancesOf(sub)).toEqual({ usd: credit });
    const ledger = await ledgerOf(sub);
    expect(ledger).toEqual([
      expect.objectContaining({
        id: applied.body.balance_transaction,
        amount_atom: credit,
        ending_balance_atom: credit,
        type: "proration",
        subscription_change_request: scr.id,
        // A sentence: the subscription by its prices and the unused range; the link is subscription_change_request.
        description: `Subscription to Plan: unused time credited, ${lineRange(new Date(scr.proration_date), new Date(sub.current_period_end))}`,
        invoice: null,
      }),
    ]);
    const events = (await client.get(`/${account}/events?aggregate_id=${ledger[0]!.id}`)).body.items as Json[];
    expect(events.map((event) => [event.type, event.data])).toEqual([["customer.balance_transaction.created", ledger[0]]]);
    expect(await invoicesOf(sub)).toHaveLength(1); // the first invoice only: a credit is no invoice

    // The next invoice finalized uses the credit.
    const draft = await client.post(`/${account}/invoices`, { customer: sub.customer, currency: "usd", lines: [{ unit_amount_atom: 5000, description: "Service" }] });
    const open = await client.post(`/${account}/invoices/${draft.body.id}/finalize`);
    expect(open.body).toMatchObject({ total_amount_atom: 5000, starting_balance_atom: credit, ending_balance_atom: 0, due_amount_atom: 5000 - credit });
  });

  it("credits a quantity decrease by the same formula, and a mixed change by its net", async () => {
    const sub = await subscribe([{ price: prices.basic, quantity: 3 }, { price: prices.addon }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const scr = await createRequest(sub, [{ type: "set_quantity", item: a, quantity: 1 }]);
    expect(scr.proration_amount_atom).toBe(expectedProration(sub, scr.proration_date, -2000));
    expect(scr.proration_credit_atom).toBe(-scr.proration_amount_atom);
    const mixed = await createRequest(sub, [
      { type: "remove_item", item: b },
      { type: "set_quantity", item: a, quantity: 2 },
    ]);
    expect(mixed).toMatchObject({ amount_due_now_atom: 0, proration_amount_atom: expectedProration(sub, mixed.proration_date, 2000 - 3500) });
    expect((await apply(sub, scr)).status).toBe(200);
    expect(await balancesOf(sub)).toEqual({ usd: scr.proration_credit_atom });
    // Previewed before the first change was applied: its credit no longer holds, so it is refused.
    expectProblem(await apply(sub, mixed), 409, /changed after/);
    expect(await balancesOf(sub)).toEqual({ usd: scr.proration_credit_atom });
  });

  it("credits once when a failed step is resumed: with the last step, never with an earlier one or again", async () => {
    const sub = await subscribe([{ price: prices.pro }, { price: prices.addon, quantity: 2 }]);
    const [a, b] = sub.items.map((item: Json) => item.id);
    const scr = await createRequest(sub, [
      { type: "switch_price", item: a, price: prices.basic },
      { type: "set_quantity", item: b, quantity: 1 },
    ]);
    const credit = -expectedProration(sub, scr.proration_date, 1500 - 4000);
    expect(scr.proration_credit_atom).toBe(credit);
    const failed = await apply(sub, scr, { sandbox_fail_step: 1 });
    expectProblem(failed, 409);
    expect(failed.body.error_code).toBe("PARTIAL_APPLY_RETRYABLE");
    expect(await getRequest(sub, scr)).toMatchObject({ status: "partially_applied", applied_steps: 1, balance_transaction: null });
    expect(await balancesOf(sub)).toEqual({});

    const resumed = await apply(sub, scr);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toMatchObject({ status: "applied", balance_transaction: expect.stringMatching(CBTXN) });
    expectProblem(await apply(sub, scr), 409, /applied/);
    expect(await balancesOf(sub)).toEqual({ usd: credit });
    expect((await ledgerOf(sub)).map((row) => [row.type, row.amount_atom])).toEqual([["proration", credit]]);
  });
});

describe("always_invoice", () => {
  it("a net increase is invoiced and paid at once, as create_prorations does", async () => {
    const sub = await subscribe([{ price: prices.basic }]);
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.pro }], { proration_behavior: "always_invoice" });
    const due = expectedProration(sub, scr.proration_date, 2000);
    expect(scr).toMatchObject({ proration_behavior: "always_invoice", amount_due_now_atom: due, proration_amount_atom: due, proration_credit_atom: 0 });
    const applied = await apply(sub, scr, { payment_method: "pm_sandbox_succeeds" });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ status: "applied", balance_transaction: null, invoice: expect.stringMatching(/^in_prod_/) });
    const invoice = (await client.get(`/${account}/invoices/${applied.body.invoice}`)).body;
    expect(invoice).toMatchObject({ status: "paid", total_amount_atom: due });
    expect(await balancesOf(sub)).toEqual({});
  });

  it("a net decrease is settled at once as a balance credit (an invoice is never negative), no invoice", async () => {
    const sub = await subscribe([{ price: prices.pro }]);
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.addon }], { proration_behavior: "always_invoice" });
    const credit = -expectedProration(sub, scr.proration_date, 500 - 3000);
    expect(scr).toMatchObject({ amount_due_now_atom: 0, proration_amount_atom: -credit, proration_credit_atom: credit });
    const applied = await apply(sub, scr);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.invoice).toBeNull();
    expect(await balancesOf(sub)).toEqual({ usd: credit });
    expect(await invoicesOf(sub)).toHaveLength(1);
  });
});

describe("none", () => {
  it("charges nothing for an increase and credits nothing for a decrease", async () => {
    const sub = await subscribe([{ price: prices.basic }]);
    const up = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.pro }], { proration_behavior: "none" });
    expect(up).toMatchObject({ proration_behavior: "none", amount_due_now_atom: 0, proration_amount_atom: 0, proration_credit_atom: 0, next_invoice_amount_atom: 3000 });
    // Nothing is due: no payment method is needed.
    const upApplied = await apply(sub, up);
    expect(upApplied.status, upApplied.text).toBe(200);
    expect(upApplied.body).toMatchObject({ status: "applied", invoice: null, payment_collected_at: null });

    const down = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.basic }], { proration_behavior: "none" });
    expect(down).toMatchObject({ amount_due_now_atom: 0, proration_amount_atom: 0, proration_credit_atom: 0 });
    expect((await apply(sub, down)).status).toBe(200);
    expect(await balancesOf(sub)).toEqual({});
    expect(await ledgerOf(sub)).toEqual([]);
    expect(await invoicesOf(sub)).toHaveLength(1);
  });
});

describe("with period_end and elsewhere", () => {
  it("prorates nothing at the period boundary, whatever proration_behavior says", async () => {
    const sub = await subscribe([{ price: prices.pro }]);
    const scr = await createRequest(sub, [{ type: "switch_price", item: sub.items[0].id, price: prices.basic }], {
      effective: "period_end",
      proration_behavior: "always_invoice",
    });
    expect(scr).toMatchObject({ effective: "period_end", proration_behavior: "always_invoice", amount_due_now_atom: 0, proration_amount_atom: 0, proration_credit_atom: 0 });
    const scheduled = await apply(sub, scr);
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.body).toMatchObject({ status: "scheduled", balance_transaction: null });
    expect(await balancesOf(sub)).toEqual({});
  });

  it("refuses an unknown proration_behavior (422 naming it), creating nothing", async () => {
    const sub = await subscribe([{ price: prices.pro }]);
    const refused = await client.post(requests(sub), { steps: [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }], proration_behavior: "prorate" });
    expectProblem(refused, 422);
    expect(refused.body.errors).toEqual([{ field: "proration_behavior", message: expect.stringMatching(/create_prorations, always_invoice, none/) }]);
    expect((await client.get(requests(sub))).body.items).toEqual([]);
  });

  it("the deprecated change-plan credits nothing for a downgrade, as before (its request says none)", async () => {
    const sub = await subscribe([{ price: prices.pro }]);
    const down = await client.post(`/${account}/subscriptions/${sub.id}/change-plan`, { price: prices.basic });
    expect(down.status, down.text).toBe(200);
    expect(await balancesOf(sub)).toEqual({});
    const [scr] = (await client.get(requests(sub))).body.items as Json[];
    expect(scr).toMatchObject({ status: "applied", proration_behavior: "none", proration_amount_atom: 0, metadata: { source: "change-plan" } });
  });
});
