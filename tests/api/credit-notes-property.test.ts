import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

/*
 * Random sequences of charges (finalized invoices), payments, refunds, credit notes (pre and post
 * payment, voids) and balance adjustments against the real server, with the invariants checked
 * after every step:
 * - Σ of an invoice's issued credit notes ≤ its total, and equals its pre + post amounts;
 * - no invoice's amount due is below 0;
 * - per currency, the customer's ledger sums to its balance.
 * Each run is a new customer (RUNS of them: over HTTP a run costs ~0.3 s; the arithmetic's own
 * 10,000-run properties are tests/unit/credit-notes.test.ts).
 */

const RUNS = 150;

let sandbox: Client;

beforeAll(async () => {
  sandbox = api((await newMerchant()).sandboxSecret.token);
});

const arbStep = fc.oneof(
  fc.record({ kind: fc.constant("invoice" as const), amount: fc.integer({ min: 0, max: 5000 }) }),
  fc.record({ kind: fc.constant("pay" as const), target: fc.nat(), outOfBand: fc.boolean() }),
  fc.record({ kind: fc.constant("refund" as const), target: fc.nat(), amount: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant("credit_note" as const), target: fc.nat(), amount: fc.integer({ min: 1, max: 4000 }), split: fc.tuple(fc.nat({ max: 100 }), fc.nat({ max: 100 })) }),
  fc.record({ kind: fc.constant("void" as const), target: fc.nat() }),
  fc.record({ kind: fc.constant("adjust" as const), amount: fc.integer({ min: -2000, max: 2000 }).filter((value) => value !== 0) }),
);

type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;

const ACCEPTED = new Set([200, 201, 409, 422]);

async function run(steps: Step[]): Promise<void> {
  const customer = (await sandbox.post("/customers", { email: "property@example.com" })).body;
  const invoices: string[] = [];
  const notes: string[] = [];
  const pick = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
  for (const step of steps) {
    let response: { status: number; text: string } | undefined;
    switch (step.kind) {
      case "invoice": {
        const draft = (await sandbox.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: step.amount, description: "Charge" }] })).body;
        response = await sandbox.post(`/invoices/${draft.id}/finalize`);
        invoices.push(draft.id);
        break;
      }
      case "pay": {
        const id = pick(invoices, step.target);
        if (id) response = await sandbox.post(`/invoices/${id}/pay`, step.outOfBand ? { paid_out_of_band: true } : { payment_method: "pm_sandbox_succeeds" });
        break;
      }
      case "refund": {
        const id = pick(invoices, step.target);
        const intent = id ? (await sandbox.get(`/invoices/${id}`)).body.payment_intent : null;
        const payment = intent ? (await sandbox.get(`/payments?payment_intent=${intent}`)).body.items[0] : undefined;
        if (payment) response = await sandbox.post("/refunds", { payment: payment.id, amount_atom: step.amount });
        break;
      }
      case "credit_note": {
        const id = pick(invoices, step.target);
        if (!id) break;
        const invoice = (await sandbox.get(`/invoices/${id}`)).body;
        const refund = Math.floor((step.amount * step.split[0]) / 200);
        const credit = Math.floor(((step.amount - refund) * step.split[1]) / 100);
        const split = invoice.status === "paid" ? { refund_amount_atom: refund, credit_amount_atom: credit, out_of_band_amount_atom: step.amount - refund - credit } : {};
        const made = await sandbox.post("/credit-notes", { invoice: id, amount_atom: step.amount, reason: "order_change", ...split });
        if (made.status === 201) notes.push(made.body.id);
        response = made;
        break;
      }
      case "void": {
        const id = pick(notes, step.target);
        if (id) response = await sandbox.post(`/credit-notes/${id}/void`);
        break;
      }
      case "adjust":
        response = await sandbox.post(`/customers/${customer.id}/balance-transactions`, { amount_atom: step.amount, currency: "usd", description: "Property" });
        break;
    }
    if (response) expect(ACCEPTED.has(response.status), `${step.kind}: ${response.text}`).toBe(true);
    await checkInvariants(customer.id);
  }
}

async function checkInvariants(customerId: string): Promise<void> {
  const invoices: Json[] = (await sandbox.get(`/invoices?customer=${customerId}&limit=100`)).body.items;
  const notes: Json[] = (await sandbox.get(`/credit-notes?customer=${customerId}&limit=100`)).body.items;
  for (const invoice of invoices) {
    const issued = notes.filter((note) => note.invoice === invoice.id && note.status === "issued");
    const credited = issued.reduce((sum, note) => sum + note.total_amount_atom, 0);
    expect(credited).toBeLessThanOrEqual(invoice.total_amount_atom);
    expect(credited).toBe(invoice.pre_payment_credit_notes_amount_atom + invoice.post_payment_credit_notes_amount_atom);
    expect(invoice.due_amount_atom).toBeGreaterThanOrEqual(0);
    if (invoice.status === "paid") expect([invoice.due_amount_atom, invoice.paid_amount_atom]).toEqual([0, invoice.total_amount_atom]);
  }
  const balances = (await sandbox.get(`/customers/${customerId}`)).body.balances;
  const ledger: Json[] = (await sandbox.get(`/customers/${customerId}/balance-transactions?limit=100`)).body.items;
  expect(ledger.reduce((sum, row) => sum + row.amount_atom, 0)).toBe(balances.usd ?? 0);
}

describe("credit notes and the balance, property", () => {
  it(`${RUNS} random sequences keep every invariant`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(arbStep, { minLength: 1, maxLength: 12 }), run), { numRuns: RUNS });
  }, 600_000);
});
