import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceContext } from "@/lib/context";
import { createCreditNote, voidCreditNote } from "@/lib/credit-notes/service";
import { CreditNoteCreateInput } from "@/lib/credit-notes/schema";
import { adjustCustomerBalance } from "@/lib/customer-balance/service";
import { BalanceTransactionCreateInput } from "@/lib/customer-balance/schema";
import { createCustomer } from "@/lib/customers/service";
import { CustomerCreateInput } from "@/lib/customers/schema";
import { ServiceError } from "@/lib/errors";
import { InvoiceCreateInput, InvoicePayInput } from "@/lib/invoices/schema";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { payInvoice } from "@/lib/invoices/settle";
import { RefundCreateInput } from "@/lib/refunds/schema";
import { createRefund } from "@/lib/refunds/service";
import { applyChangeRequest } from "@/lib/subscription-changes/apply";
import { createChangeRequest } from "@/lib/subscription-changes/service";
import { SubscriptionCreateInput } from "@/lib/subscriptions/schema";
import { createSubscription } from "@/lib/subscriptions/service";
import { api } from "../helpers/api";
import { arbSequence, PLAN_AMOUNTS, runSequence, type BillingDriver, type Outcome, type Step } from "../helpers/billing-sequences";
import { newMerchant } from "../helpers/merchant";

/*
 * Issue #23's property test: 10,000 random sequences of charges, payments, refunds, credit notes
 * (pre and post payment, voids), balance adjustments and plan changes per run, each on a new
 * customer, against the real PostgreSQL and the real service code, with every invariant of
 * tests/helpers/billing-sequences.ts checked after every step.
 *
 * Why in-process (docs/decisions.md, "Credit notes and the customer balance"): over HTTP a
 * sequence costs ~0.3 s, so 10,000 would take ~50 min; the HTTP layer only parses, authorizes and
 * serializes around the same verbs, and keeps its own 150 sequences
 * (tests/api/credit-notes-property.test.ts). Here the verbs run in the test worker on the test
 * database, their inputs parsed by the operations' own zod schemas, LANES sequences at a time on
 * distinct sandbox accounts (an account's invoice and credit note numbers are one locked sequence).
 *
 * The 10,000 sequences are drawn with fc.sample from one seed; on a failure, fc.assert replays that
 * very sequence (seed and path) and shrinks it, so the report is a minimal failing sequence.
 * FC_SEED=<seed> reproduces a run; PROPERTY_SEQUENCES=<n> runs fewer, for a quick local look.
 */

const SEQUENCES = Number(process.env.PROPERTY_SEQUENCES ?? 10_000);
const LANES = 6;
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);

type Lane = { driver: BillingDriver; prices: string[] };

/** A verb's refusal a client can be given (409, 422) is an outcome; anything else fails the property. */
async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ServiceError && (error.category === "conflict" || error.category === "validation")) return { ok: false, refusal: error.message };
    throw error;
  }
}

function inProcessDriver(ctx: ServiceContext): BillingDriver {
  const done = async (run: () => Promise<unknown>) =>
    outcome(async () => {
      await run();
      return null;
    });
  return {
    createCustomer: async () => (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "property@example.com" }) })).id,
    charge: (customer, amount) =>
      done(async () => {
        const input = InvoiceCreateInput.parse({ customer, currency: "usd", lines: [{ unit_amount_atom: amount, description: "Charge" }] });
        const draft = await createInvoice({ ctx, input });
        return finalizeInvoice({ ctx, input: { id: draft.invoice.id } });
      }),
    pay: (id, method) =>
      done(() => payInvoice({ ctx, input: { id, payment: InvoicePayInput.parse(method === "out_of_band" ? { paid_out_of_band: true } : { payment_method: method }) } })),
    refund: (payment, amount) => done(() => createRefund({ ctx, input: RefundCreateInput.parse({ payment, amount_atom: amount }) })),
    creditNote: (input) => done(() => createCreditNote({ ctx, input: CreditNoteCreateInput.parse({ ...input, reason: "order_change" }) })),
    voidCreditNote: (id) => done(() => voidCreditNote({ ctx, input: { id } })),
    adjust: (customerId, amount) =>
      done(() => adjustCustomerBalance({ ctx, input: { customerId, adjustment: BalanceTransactionCreateInput.parse({ amount_atom: amount, currency: "usd", description: "Property" }) } })),
    subscribe: (customer, price, method) =>
      outcome(async () => {
        const made = await createSubscription({ ctx, input: SubscriptionCreateInput.parse({ customer, items: [{ price }], default_payment_method: method }) });
        return { id: made.subscription.id, item: made.items[0]!.id };
      }),
    changePlan: (subscriptionId, item, price, method) =>
      done(async () => {
        const request = await createChangeRequest({ ctx, input: { subscriptionId, steps: [{ type: "switch_price", item, price }], effective: "now" } });
        return applyChangeRequest({ ctx, input: { subscriptionId, id: request.id, paymentMethod: method } });
      }),
  };
}

/** A sandbox account with the plans' prices, for one lane. */
async function newLane(): Promise<Lane> {
  const merchant = await newMerchant();
  const sandbox = api(merchant.sandboxSecret.token);
  const product = await sandbox.post("/products", { name: "Plan" });
  expect(product.status, product.text).toBe(201);
  const prices: string[] = [];
  for (const amount of PLAN_AMOUNTS) {
    const price = await sandbox.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } });
    expect(price.status, price.text).toBe(201);
    prices.push(price.body.id);
  }
  const ctx: ServiceContext = { accountId: merchant.sandboxAccountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date() };
  return { driver: inProcessDriver(ctx), prices };
}

let lanes: Lane[];

beforeAll(async () => {
  lanes = await Promise.all(Array.from({ length: LANES }, newLane));
});

/** Runs the sequences LANES at a time; answers the first failing one's index (and its error), or null. */
async function runAll(sequences: readonly Step[][]): Promise<{ index: number; error: unknown } | null> {
  let next = 0;
  const failures: { index: number; error: unknown }[] = [];
  await Promise.all(
    lanes.map(async (lane) => {
      while (failures.length === 0 && next < sequences.length) {
        const index = next++;
        try {
          await runSequence(lane.driver, lane.prices, sequences[index]!, { fullCheckEachStep: false });
        } catch (error) {
          failures.push({ index, error });
        }
      }
    }),
  );
  // The lanes stop at the first failure; of those still running then, the earliest sequence is replayed.
  return failures.sort((a, b) => a.index - b.index)[0] ?? null;
}

describe("the billing invariants, property (in-process)", () => {
  it(`${SEQUENCES} random sequences of charges, payments, refunds, credit notes, adjustments and plan changes keep every invariant`, async () => {
    const sequences = fc.sample(arbSequence, { seed: SEED, numRuns: SEQUENCES });
    const started = Date.now();
    const failure = await runAll(sequences);
    if (failure !== null) {
      // Replays the failing sequence (same seed, its path) and shrinks it: the error names the minimal one.
      const [lane] = lanes;
      await fc.assert(fc.asyncProperty(arbSequence, async (steps) => void (await runSequence(lane!.driver, lane!.prices, steps, { fullCheckEachStep: true }))), { seed: SEED, path: String(failure.index) });
      throw new Error(`Sequence ${failure.index} of seed ${SEED} failed, but not when replayed alone: ${String(failure.error)}`);
    }
    const steps = sequences.reduce((total, sequence) => total + sequence.length, 0);
    console.log(`billing property: ${SEQUENCES} sequences, ${steps} steps, ${Date.now() - started} ms (FC_SEED=${SEED})`);
    expect(steps).toBeGreaterThanOrEqual(SEQUENCES);
  }, 1_800_000);
});
