import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { advanceClock } from "@/lib/clock/service";
import type { ServiceContext } from "@/lib/context";
import { createCreditNote, voidCreditNote } from "@/lib/credit-notes/service";
import { CreditNoteCreateInput } from "@/lib/credit-notes/schema";
import { adjustCustomerBalance } from "@/lib/customer-balance/service";
import { BalanceTransactionCreateInput } from "@/lib/customer-balance/schema";
import { createCustomer, updateCustomer } from "@/lib/customers/service";
import { CustomerCreateInput, CustomerUpdateInput } from "@/lib/customers/schema";
import { applyDiscount } from "@/lib/discounts/service";
import { ServiceError } from "@/lib/errors";
import { InvoiceCreateInput, InvoicePayInput } from "@/lib/invoices/schema";
import { createInvoice, finalizeInvoice, getInvoice } from "@/lib/invoices/service";
import { payInvoice, voidInvoice } from "@/lib/invoices/settle";
import { RefundCreateInput } from "@/lib/refunds/schema";
import { createRefund } from "@/lib/refunds/service";
import { applyChangeRequest } from "@/lib/subscription-changes/apply";
import { cancelChangeRequest, createChangeRequest } from "@/lib/subscription-changes/service";
import { SubscriptionCancelInput, SubscriptionCreateInput } from "@/lib/subscriptions/schema";
import { cancelSubscription, createSubscription, getSubscription } from "@/lib/subscriptions/service";
import { createCoupon } from "@/lib/coupons/service";
import { CouponCreateInput } from "@/lib/coupons/schema";
import { createMeter } from "@/lib/meters/service";
import { MeterCreateInput } from "@/lib/meters/schema";
import { createOrganization } from "@/lib/organizations/service";
import { createPrice } from "@/lib/prices/service";
import { PriceCreateInput } from "@/lib/prices/schema";
import { createProduct } from "@/lib/products/service";
import { ProductCreateInput } from "@/lib/products/schema";
import { createTaxRate } from "@/lib/tax-rates/service";
import { TaxRateCreateInput } from "@/lib/tax-rates/schema";
import { getDb } from "@/db/client";
import { renewalGraceMs } from "@/lib/usage/billing";
import { ingestUsageEvents } from "@/lib/usage/ingest";
import { auditAccountMoney, describeDifference } from "@/scripts/audit/money";
import { arbSequence, CATALOGUE, couponTerms, METERED, newCurrencyTally, priceTerms, runSequence, type CurrencyTally, type BillingDriver, type CatalogueIds, type Outcome, type Sequence } from "../helpers/billing-sequences";

/*
 * Issue #42's property test (widening issue #23's): 10,000 random sequences per run, each on a new
 * customer, of multi-line invoices (per-unit, graduated and volume prices with quantities, custom
 * amounts, inclusive and exclusive tax rates), payments (card, partial, declined, out of band),
 * refunds, credit notes by amount and by line (pre and post payment) and their voids, invoice
 * voids, balance adjustments, once/repeating/forever coupons, a subscription with price and
 * quantity changes (now, with every proration_behavior, and at the period end) and its renewal by
 * the sandbox test clock, collected automatically or by sending its invoices (`send_invoice`:
 * never charged, due `days_until_due` after finalization; issue #37), all of it in the customer's
 * currency (issue #38: usd, eur, jpy or bhd, from the prices' and coupons' currency options; set on
 * creation or fixed by the first invoice or subscription, changed only while nothing holds it).
 * After every step an independent model (tests/helpers/billing-model.ts)
 * must agree with the outcome (a refusal passes only where the model refuses too) and with every
 * amount of the customer's rows, and every invariant of tests/helpers/billing-sequences.ts holds.
 *
 * Why in-process (docs/rules/credit-notes-and-balance.md, "Credit notes and the customer balance"): over HTTP a
 * sequence costs ~0.3 s, so 10,000 would take ~50 min; the HTTP layer only parses, authorizes and
 * serializes around the same verbs, and keeps its own 150 sequences
 * (tests/api/credit-notes-property.test.ts). Here the verbs run in the test worker on the property
 * project's own database (tests/setup/property-database.ts: no app works on it meanwhile), their
 * inputs parsed by the operations' own zod schemas, LANES sequences at a time on distinct sandbox
 * accounts (an account's numbers are one locked sequence, and its test clock is the account's).
 * Each lane's clock is held still during a step, so the model knows the instant every amount was
 * computed at (a proration's remaining time).
 *
 * The run is SHARDS test files (billing-property-<n>.test.ts), each its own worker process: the
 * work is CPU (the verbs, their PDFs, PostgreSQL), and one process uses one core. Each file draws
 * the 10,000 sequences with fc.sample from its seed and runs its share, the indexes ≡ its shard
 * (mod SHARDS); on a failure, fc.assert replays that very sequence (seed and path) and shrinks it,
 * so the report is a minimal failing sequence. `FC_SEED=<seed> npx vitest run --project property
 * tests/property/billing-property-<n>.test.ts` reproduces a file's run; PROPERTY_SEQUENCES=<n> runs
 * fewer, for a quick local look.
 */

const SEQUENCES = Number(process.env.PROPERTY_SEQUENCES ?? 10_000);
/** Test files the sequences are shared among (billing-property-1.test.ts …). */
export const SHARDS = 2;
const LANES = 6;
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);

type Lane = { accountId: string; driver: BillingDriver; ids: CatalogueIds };

/** A verb's refusal a client can be given (409, 422) is an outcome (the model says whether it may be); anything else fails the property. */
async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ServiceError && (error.category === "conflict" || error.category === "validation")) return { ok: false, refusal: error.message };
    throw error;
  }
}

/**
 * The driver of one lane: its account's clock, held at one instant during each step. No other
 * process works on the property database (no app, no clock ticker), so a clock advance never meets
 * another's run of the same account's due transitions: its 409 "stays due after running" would be a
 * failure here, not a stall to retry.
 */
function inProcessDriver(accountId: string): BillingDriver {
  let held = new Date();
  let offsetMs = 0;
  const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date(held.getTime()) };
  const done = async (run: () => Promise<unknown>) =>
    outcome(async () => {
      await run();
      return null;
    });
  return {
    now: async () => {
      // Never backwards: two steps in one millisecond would otherwise share an instant with an earlier one.
      held = new Date(Math.max(Date.now() + offsetMs, held.getTime() + 1));
      return held;
    },
    createCustomer: async (currency) => (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "property@example.com", ...(currency === null ? {} : { currency }) }) })).id,
    charge: (customer, currency, lines) =>
      outcome(async () => {
        const draft = await createInvoice({ ctx, input: InvoiceCreateInput.parse({ customer, currency, lines }) });
        const open = await finalizeInvoice({ ctx, input: { id: draft.invoice.id } });
        return { id: open.invoice.id, lines: draft.lines.map((line) => line.id) };
      }),
    pay: (id, method) =>
      done(() => payInvoice({ ctx, input: { id, payment: InvoicePayInput.parse(method === "out_of_band" ? { paid_out_of_band: true } : { payment_method: method }) } })),
    refund: (payment, amount) => done(() => createRefund({ ctx, input: RefundCreateInput.parse({ payment, amount_atom: amount }) })),
    creditNote: (input) => outcome(async () => ({ id: (await createCreditNote({ ctx, input: CreditNoteCreateInput.parse({ ...input, reason: "order_change" }) })).id })),
    voidCreditNote: (id) => done(() => voidCreditNote({ ctx, input: { id } })),
    voidInvoice: (id) => done(() => voidInvoice({ ctx, input: { id } })),
    adjust: (customerId, amount, currency) =>
      done(() => adjustCustomerBalance({ ctx, input: { customerId, adjustment: BalanceTransactionCreateInput.parse({ amount_atom: amount, currency, description: "Property" }) } })),
    applyCoupon: (customerId, couponId) => done(() => applyDiscount({ ctx, input: { customerId, couponId } })),
    setCurrency: (id, currency) => done(() => updateCustomer({ ctx, input: { id, changes: CustomerUpdateInput.parse({ currency }) } })),
    subscribe: (customer, price, quantity, method, metered, sendInvoice) =>
      outcome(async () => {
        const items = metered ? [{ price, quantity }, { price: metered }] : [{ price, quantity }];
        const collection = sendInvoice ? { collection_method: "send_invoice", days_until_due: sendInvoice.daysUntilDue } : {};
        const made = await createSubscription({ ctx, input: SubscriptionCreateInput.parse({ customer, items, default_payment_method: method, ...collection }) });
        return { id: made.subscription.id, item: made.items[0]!.id, invoice: made.subscription.latestInvoiceId };
      }),
    change: async (subscriptionId, steps, options) => {
      const request = await outcome(() => createChangeRequest({ ctx, input: { subscriptionId, steps, effective: options.effective, prorationBehavior: options.behavior } }));
      if (!request.ok) return { ...request, invoice: null, prorationDate: held };
      const applied = await outcome(() => applyChangeRequest({ ctx, input: { subscriptionId, id: request.value.id, paymentMethod: options.method } }));
      const after = await outcome(() => cancelChangeRequestIfOpen(ctx, subscriptionId, request.value.id, applied.ok));
      if (!after.ok) throw new Error(`cancelling the refused change request: ${after.refusal}`);
      const invoice = after.value;
      return applied.ok ? { ok: true, value: { invoice, prorationDate: request.value.prorationDate } } : { ok: false, refusal: applied.refusal, invoice, prorationDate: request.value.prorationDate };
    },
    renew: (subscriptionId) =>
      outcome(async () => {
        const { subscription } = await getSubscription({ ctx, input: { id: subscriptionId } });
        // With a metered item the renewal waits the account's usage grace after the period end.
        const dueAt = subscription.currentPeriodEnd.getTime() + (await renewalGraceMs(await getDb(), subscriptionId));
        const advanced = await advanceClock({ ctx: { ...ctx, now: () => new Date(Date.now() + offsetMs) }, input: { to: new Date(dueAt + 1_000) } });
        offsetMs = advanced.offsetMs;
        const after = await getSubscription({ ctx, input: { id: subscriptionId } });
        return { invoice: after.subscription.latestInvoiceId === subscription.latestInvoiceId ? null : after.subscription.latestInvoiceId };
      }),
    usage: async (events) => {
      const items = events.map((event) => ({ event_name: METERED.eventName, customer: event.customer, identifier: event.identifier, timestamp: event.timestamp, payload: { value: event.value } }));
      return (await ingestUsageEvents(ctx, items)).map((answer) => ({ status: answer.status, code: answer.error?.code ?? null }));
    },
    advance: async (to) => {
      offsetMs = (await advanceClock({ ctx: { ...ctx, now: () => new Date(Date.now() + offsetMs) }, input: { to } })).offsetMs;
    },
    end: async (id) => {
      const ended = await outcome(() => cancelSubscription({ ctx: { ...ctx, now: () => new Date(Math.max(Date.now() + offsetMs, held.getTime() + 1)) }, input: { id, options: SubscriptionCancelInput.parse({}) } }));
      if (!ended.ok) throw new Error(`cancelling the sequence's subscription: ${ended.refusal}`);
    },
  };
}

/** The proration invoice of a change request (null when none), after cancelling it if its apply was refused (which voids that invoice). */
async function cancelChangeRequestIfOpen(ctx: ServiceContext, subscriptionId: string, id: string, applied: boolean): Promise<string | null> {
  if (applied) {
    const { getChangeRequest } = await import("@/lib/subscription-changes/service");
    return (await getChangeRequest({ ctx, input: { subscriptionId, id } })).invoiceId;
  }
  const canceled = await cancelChangeRequest({ ctx, input: { subscriptionId, id } });
  if (canceled.invoiceId !== null) await getInvoice({ ctx, input: { id: canceled.invoiceId } });
  return canceled.invoiceId;
}

/** A sandbox account of a new organization with the CATALOGUE's prices, tax rates and coupons, for one lane: made by the same verbs, inputs parsed by the operations' schemas. */
async function newLane(index: number): Promise<Lane> {
  const { sandboxAccountId: accountId } = await createOrganization(await getDb(), { name: `Property lane ${index}` });
  const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date() };
  const product = (await createProduct({ ctx, input: ProductCreateInput.parse({ name: "Plan" }) })).id;
  const price = async (terms: object) => (await createPrice({ ctx, input: PriceCreateInput.parse({ product, type: "recurring", ...terms }) })).id;
  const ids: CatalogueIds = { prices: [], taxRates: [], coupons: [] };
  const meter = (await createMeter({ ctx, input: MeterCreateInput.parse({ event_name: METERED.eventName, display_name: "Units", aggregation: "sum" }) })).id;
  ids.metered = await price({ recurring: { interval: "month", usage_type: "metered", meter }, ...priceTerms(METERED.price) });
  for (const terms of CATALOGUE.prices) ids.prices.push(await price({ recurring: { interval: "month" }, ...priceTerms(terms) }));
  for (const [rateIndex, rate] of CATALOGUE.taxRates.entries()) {
    ids.taxRates.push((await createTaxRate({ ctx, input: TaxRateCreateInput.parse({ display_name: `Tax ${rateIndex}`, percentage: rate.percentE4 / 10_000, inclusive: rate.inclusive }) })).id);
  }
  for (const coupon of CATALOGUE.coupons) ids.coupons.push((await createCoupon({ ctx, input: CouponCreateInput.parse(couponTerms(coupon)) })).id);
  return { accountId, driver: inProcessDriver(accountId), ids };
}

/** The project's database (tests/setup/property-database.ts), which the audit reads from outside like `npm run audit:money`. */
function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set for the property worker (tests/setup/property-env.ts)");
  return url;
}

/**
 * A sequence still running after this is hung (a lock never granted, a promise never settled), not
 * slow: one takes well under a second on a quiet machine. The test's own timeout is only the CI's
 * limit: a shard's 5,000 took over 30 min while the machine ran at load 11–25.
 */
const SEQUENCE_HUNG_AFTER_MS = 300_000;
const SHARD_TIMEOUT_MS = 90 * 60_000;

/** The sequence's run, or a failure naming it when it outlives SEQUENCE_HUNG_AFTER_MS. */
async function notHung<T>(run: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still ran after ${SEQUENCE_HUNG_AFTER_MS / 1000} s: hung`)), SEQUENCE_HUNG_AFTER_MS);
  });
  try {
    return await Promise.race([run, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the sequences of `indexes` LANES at a time; answers the first failing one's index (and its error), or null. */
async function runAll(lanes: readonly Lane[], sequences: readonly Sequence[], indexes: readonly number[], tally: CurrencyTally): Promise<{ index: number; error: unknown } | null> {
  let next = 0;
  const failures: { index: number; error: unknown }[] = [];
  await Promise.all(
    lanes.map(async (lane) => {
      while (failures.length === 0 && next < indexes.length) {
        const index = indexes[next++]!;
        try {
          await notHung(runSequence(lane.driver, lane.ids, sequences[index]!, tally), `sequence ${index}`);
        } catch (error) {
          failures.push({ index, error });
        }
      }
    }),
  );
  // The lanes stop at the first failure; of those still running then, the earliest sequence is replayed.
  return failures.sort((a, b) => a.index - b.index)[0] ?? null;
}

/** The property test of one shard: its lanes, its share of the sequences, the audit of its accounts. `shard`: 0 … SHARDS − 1. */
export function describeBillingProperty(shard: number): void {
  if (!Number.isInteger(shard) || shard < 0 || shard >= SHARDS) throw new Error(`shard ${shard}: the billing property test has shards 0 … ${SHARDS - 1} (SHARDS)`);
  let lanes: Lane[];

  beforeAll(async () => {
    lanes = await Promise.all(Array.from({ length: LANES }, (_, index) => newLane(shard * LANES + index)));
  });

  describe(`the billing invariants and the model of the money, property (in-process, shard ${shard + 1} of ${SHARDS})`, () => {
    it(`its share of ${SEQUENCES} random sequences of invoices, payments, refunds, credit notes, voids, adjustments, coupons, plan changes and renewals, in four currencies, agree with the model`, async () => {
      const sequences = fc.sample(arbSequence, { seed: SEED, numRuns: SEQUENCES });
      const indexes = sequences.map((_, index) => index).filter((index) => index % SHARDS === shard);
      const mine = indexes.map((index) => sequences[index]!);
      const started = Date.now();
      const cpu = process.cpuUsage();
      const seed = `FC_SEED=${SEED} (shard ${shard + 1} of ${SHARDS})`;
      console.log(`billing property: ${seed}`);
      const tally = newCurrencyTally();
      const failure = await runAll(lanes, sequences, indexes, tally);
      if (failure !== null) {
        console.log(`billing property: sequence ${failure.index} of ${seed} failed: ${String(failure.error).slice(0, 4000)}`);
        console.log(`billing property: its steps: ${JSON.stringify(sequences[failure.index])}`);
        // Replays the failing sequence (same seed, its path) and shrinks it: the error names the minimal one.
        const [lane] = lanes;
        await fc.assert(fc.asyncProperty(arbSequence, async (steps) => void (await runSequence(lane!.driver, lane!.ids, steps))), { seed: SEED, path: String(failure.index) });
        throw new Error(`Sequence ${failure.index} of ${seed} failed, but not when replayed alone: ${String(failure.error)}`);
      }
      const used = process.cpuUsage(cpu);
      const steps = mine.reduce((total, sequence) => total + sequence.steps.length, 0);
      const renewals = mine.reduce((total, sequence) => total + sequence.steps.filter((step) => step.kind === "renew").length, 0);
      const usage = mine.reduce((total, sequence) => total + sequence.steps.filter((step) => step.kind === "usage").length, 0);
      const metered = mine.filter((sequence) => sequence.steps.find((step) => step.kind === "plan")?.metered === true).length;
      const preset = mine.filter((sequence) => sequence.customer.preset !== null).length;
      const changes = mine.reduce((total, sequence) => total + sequence.steps.filter((step) => step.kind === "currency").length, 0);
      console.log(
        `billing property: ${mine.length} sequences, ${steps} steps (${renewals} renewal steps, ${usage} usage steps, ${changes} currency changes drawn; ${metered} sequences subscribe with a metered item; ${preset} customers created with a currency; invoices finalized per currency ${JSON.stringify(tally.invoices)}, ${tally.noAmount} refusals of a price without the currency (422), ${tally.held} of a held currency (409), ${tally.changed} currency changes made), ${Date.now() - started} ms, the worker's CPU ${Math.round((used.user + used.system) / 1000)} ms (user ${Math.round(used.user / 1000)}, system ${Math.round(used.system / 1000)}) (${seed})`,
      );
      expect(steps).toBeGreaterThanOrEqual(mine.length);
      // The audit from outside (scripts/audit/money.ts) recomputes every lane's money from its events: it must find nothing.
      const differences = (await Promise.all(lanes.map(async (lane) => (await auditAccountMoney({ databaseUrl: databaseUrl(), accountId: lane.accountId })).map((difference) => `${lane.accountId}: ${describeDifference(difference)}`)))).flat();
      expect(differences, `the money audit of the lanes' accounts (${seed})`).toEqual([]);
    }, SHARD_TIMEOUT_MS);
  });
}
