import { and, eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { creditGrantApplications, creditGrants, invoices } from "@/db/schema";
import { advanceClock } from "@/lib/clock/service";
import type { ServiceContext } from "@/lib/context";
import { CreditGrantCreateInput } from "@/lib/credit-grants/schema";
import { createCreditGrant, remainingCredit, voidCreditGrant } from "@/lib/credit-grants/service";
import { createCustomer } from "@/lib/customers/service";
import { CustomerCreateInput } from "@/lib/customers/schema";
import { InvoiceCreateInput } from "@/lib/invoices/schema";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { createMeter } from "@/lib/meters/service";
import { MeterCreateInput } from "@/lib/meters/schema";
import { createOrganization } from "@/lib/organizations/service";
import { createPrice } from "@/lib/prices/service";
import { PriceCreateInput } from "@/lib/prices/schema";
import { createProduct } from "@/lib/products/service";
import { ProductCreateInput } from "@/lib/products/schema";
import { createTaxRate } from "@/lib/tax-rates/service";
import { TaxRateCreateInput } from "@/lib/tax-rates/schema";
import { runOnLanes } from "../helpers/property-lanes";

/*
 * Credit grants' property test (issue #38 point 2; docs/rules/invoices.md, "Credit grants at
 * finalization"): random sequences on one customer each of grants (amounts, priorities, expiries,
 * scoped to a meter or not), voids, invoices of licensed and metered lines (with and without an
 * exclusive tax) finalized at once, and test-clock advances that expire grants. An independent
 * model, written here and importing nothing of lib/money.ts, says what each finalization applies
 * (grant, line, amount); after every step the invoice's credits, its total, each grant's remaining
 * and status, and the ledger must be the model's, and:
 *   - invoice total = Σ lines − discount + exclusive taxes − credits applied;
 *   - per grant Σ of its ledger ≤ its amount, and Σ + remaining = amount;
 *   - no ledger entry after the grant's expiry or void.
 * Verbs in-process on the property project's database, as tests/property/billing-property.ts.
 * `PROPERTY_SEQUENCES=<n>` sets how many (default 300).
 */

const SEQUENCES = Number(process.env.PROPERTY_SEQUENCES ?? 300);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const HOUR = 3_600_000;

const arbStep = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("grant" as const),
      amount: fc.integer({ min: 1, max: 3000 }),
      priority: fc.constantFrom(0, 10, 50, 50, 100),
      expiresInHours: fc.option(fc.integer({ min: 1, max: 72 }), { nil: null }),
      metered: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("void" as const), target: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("invoice" as const),
      lines: fc.array(fc.record({ amount: fc.integer({ min: 0, max: 2500 }), metered: fc.boolean(), taxed: fc.boolean() }), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 48 }) }) },
);
type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;

/** The model's grant. */
type MGrant = { id: string; amount: number; remaining: number; priority: number; expiresAt: number | null; order: number; metered: boolean; status: "active" | "depleted" | "expired" | "voided" };
type MApplication = { grant: string; line: number; amount: number };

/** What the model says a finalization at `at` applies: grants by priority, earliest expiry (none last), creation; each pays eligible lines in order. */
function modelCredits(grants: MGrant[], lines: { amount: number; metered: boolean }[], at: number): MApplication[] {
  const usable = grants
    .filter((g) => g.status === "active" && g.remaining > 0 && (g.expiresAt === null || g.expiresAt > at))
    .sort((a, b) => a.priority - b.priority || (a.expiresAt ?? Infinity) - (b.expiresAt ?? Infinity) || a.order - b.order);
  const left = lines.map((line) => line.amount);
  const out: MApplication[] = [];
  for (const grant of usable) {
    for (let index = 0; index < lines.length && grant.remaining > 0; index++) {
      if (left[index] === 0 || (grant.metered && !lines[index]!.metered)) continue;
      const amount = Math.min(grant.remaining, left[index]!);
      grant.remaining -= amount;
      left[index]! -= amount;
      out.push({ grant: grant.id, line: index, amount });
    }
    if (grant.remaining === 0) grant.status = "depleted";
  }
  return out;
}

/** What the run exercised, so a generator that stopped drawing applications fails the test instead of passing it vacuously. */
const seen = { applications: 0, expired: 0, meteredOnly: 0 };

type Lane = { ctx: ServiceContext; accountId: string; meter: string; meteredPrice: string; vat: string; setNow: (at: Date) => void; now: () => Date; offset: { ms: number } };

async function newLane(index: number): Promise<Lane> {
  const { sandboxAccountId: accountId } = await createOrganization(await getDb(), { name: `Grants lane ${index}` });
  const offset = { ms: 0 };
  let held = new Date();
  const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date(held.getTime()) };
  const product = (await createProduct({ ctx: { ...ctx, now: () => new Date() }, input: ProductCreateInput.parse({ name: "Usage" }) })).id;
  const meter = (await createMeter({ ctx, input: MeterCreateInput.parse({ event_name: `grant_units_${index}`, display_name: "Units", aggregation: "sum" }) })).id;
  const meteredPrice = (
    await createPrice({ ctx, input: PriceCreateInput.parse({ product, currency: "usd", type: "recurring", unit_amount_atom: 1, recurring: { interval: "month", usage_type: "metered", meter } }) })
  ).id;
  const vat = (await createTaxRate({ ctx, input: TaxRateCreateInput.parse({ display_name: "VAT", percentage: 19, inclusive: false }) })).id;
  return {
    ctx,
    accountId,
    meter,
    meteredPrice,
    vat,
    offset,
    setNow: (at) => {
      held = at;
    },
    now: () => new Date(Math.max(Date.now() + offset.ms, held.getTime() + 1)),
  };
}

async function runSequence(lane: Lane, steps: Step[]): Promise<void> {
  const { ctx } = lane;
  lane.setNow(lane.now());
  const customer = (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "grants@example.com" }) })).id;
  const grants: MGrant[] = [];
  const db = await getDb();
  for (const step of steps) {
    const at = lane.now();
    lane.setNow(at);
    if (step.kind === "grant") {
      const expiresAt = step.expiresInHours === null ? null : at.getTime() + step.expiresInHours * HOUR;
      const row = await createCreditGrant({
        ctx,
        input: CreditGrantCreateInput.parse({
          customer,
          amount_atom: step.amount,
          currency: "usd",
          category: "paid",
          priority: step.priority,
          applies_to: step.metered ? { meters: [lane.meter] } : "all",
          ...(expiresAt === null ? {} : { expires_at: new Date(expiresAt).toISOString() }),
        }),
      });
      grants.push({ id: row.id, amount: step.amount, remaining: step.amount, priority: step.priority, expiresAt, order: grants.length, metered: step.metered, status: "active" });
    } else if (step.kind === "void") {
      const target = grants.length === 0 ? undefined : grants[step.target % grants.length]!;
      if (!target) continue;
      const mayVoid = target.status === "active" || target.status === "depleted";
      const voided = await voidCreditGrant({ ctx, input: { id: target.id } }).then(
        () => true,
        () => false,
      );
      expect(voided, `void of a ${target.status} grant`).toBe(mayVoid);
      if (mayVoid) target.status = "voided";
    } else if (step.kind === "advance") {
      const to = new Date(at.getTime() + step.hours * HOUR);
      lane.offset.ms = (await advanceClock({ ctx: { ...ctx, now: () => new Date(Date.now() + lane.offset.ms) }, input: { to } })).offsetMs;
      // The clock's expiry transition ran: every active grant whose expiry has come is expired.
      for (const grant of grants) {
        if (grant.status === "active" && grant.expiresAt !== null && grant.expiresAt <= to.getTime()) {
          grant.status = "expired";
          seen.expired++;
        }
      }
    } else {
      const lines = step.lines.map((line, index) =>
        line.metered
          ? { price: lane.meteredPrice, quantity: line.amount, unit_amount_atom: 1, amount_atom: line.amount, description: `Units ${index}`, ...(line.taxed ? { tax_rates: [lane.vat] } : {}) }
          : null,
      );
      const draft = await createInvoice({
        ctx,
        input: {
          ...InvoiceCreateInput.parse({
            customer,
            currency: "usd",
            lines: step.lines.flatMap((line, index) => (line.metered ? [] : [{ unit_amount_atom: line.amount, quantity: 1, description: `Line ${index}`, ...(line.taxed ? { tax_rates: [lane.vat] } : {}) }])),
          }),
          usage: lines.flatMap((line) => (line ? [line] : [])),
        },
      });
      // The invoice's lines: the licensed ones first, then the usage ones (createInvoice's order).
      const ordered = [...step.lines.filter((line) => !line.metered), ...step.lines.filter((line) => line.metered)];
      const expected = modelCredits(grants, ordered, at.getTime());
      if (draft.lines.length === 0) continue;
      const open = await finalizeInvoice({ ctx, input: { id: draft.invoice.id } });
      const { invoice } = open;
      expect(invoice.creditsApplied).toEqual(expected.map((entry) => ({ credit_grant: entry.grant, line: draft.lines[entry.line]!.id, amount_atom: entry.amount })));
      const credits = expected.reduce((sum, entry) => sum + entry.amount, 0);
      seen.applications += expected.length;
      seen.meteredOnly += expected.filter((entry) => grants.find((g) => g.id === entry.grant)!.metered).length;
      expect(invoice.creditsAppliedAtom).toBe(credits);
      const exclusiveTax = open.lines.flatMap((line) => line.taxAmounts).filter((tax) => !tax.inclusive).reduce((sum, tax) => sum + tax.amount_atom, 0);
      expect(invoice.totalAmountAtom).toBe(invoice.subtotalAtom - invoice.discountAtom + exclusiveTax - credits);
      expect(invoice.subtotalAtom).toBe(ordered.reduce((sum, line) => sum + line.amount, 0));
    }
    // After every step: each grant as the model says, its ledger within its amount and its window.
    const rows = await db.select().from(creditGrants).where(eq(creditGrants.customerId, customer));
    const ledger = await db.select().from(creditGrantApplications).where(eq(creditGrantApplications.customerId, customer));
    for (const grant of grants) {
      const row = rows.find((candidate) => candidate.id === grant.id)!;
      expect({ remaining: row.remainingAtom, status: row.status }, grant.id).toEqual({ remaining: grant.remaining, status: grant.status });
      const entries = ledger.filter((entry) => entry.creditGrantId === grant.id);
      const applied = entries.reduce((sum, entry) => sum + entry.amountAtom, 0);
      expect(applied).toBeLessThanOrEqual(row.amountAtom);
      expect(applied + row.remainingAtom).toBe(row.amountAtom);
      for (const entry of entries) {
        if (row.expiresAt) expect(entry.created.getTime()).toBeLessThan(row.expiresAt.getTime());
        if (row.voidedAt) expect(entry.created.getTime()).toBeLessThan(row.voidedAt.getTime());
      }
    }
    const remaining = grants.filter((g) => g.status === "active" && (g.expiresAt === null || g.expiresAt > lane.now().getTime() + 0)).reduce((sum, g) => sum + g.remaining, 0);
    const now = lane.now();
    lane.setNow(now);
    const activeNow = grants.filter((g) => g.status === "active" && (g.expiresAt === null || g.expiresAt > now.getTime())).reduce((sum, g) => sum + g.remaining, 0);
    expect(await remainingCredit({ ctx, customerId: customer, currency: "usd" })).toBe(activeNow);
    expect(remaining).toBeGreaterThanOrEqual(activeNow);
    // Every invoice of the customer: credits applied = Σ of its ledger entries.
    const invoiceRows = await db.select().from(invoices).where(and(eq(invoices.customerId, customer), eq(invoices.status, "paid")));
    for (const row of invoiceRows) {
      expect(ledger.filter((entry) => entry.invoiceId === row.id).reduce((sum, entry) => sum + entry.amountAtom, 0)).toBe(row.creditsAppliedAtom);
    }
  }
}

describe("credit grants at finalization (property)", () => {
  const LANES = 3;
  let lanes: Lane[];
  beforeAll(async () => {
    lanes = await Promise.all(Array.from({ length: LANES }, (_, index) => newLane(index)));
  }, 120_000);

  it(`${SEQUENCES} sequences: the model's credits, totals, remaining amounts and ledger (seed ${SEED})`, async () => {
    const sequences = fc.sample(fc.array(arbStep, { minLength: 1, maxLength: 8 }), { seed: SEED, numRuns: SEQUENCES });
    await runOnLanes(lanes, sequences, `seed ${SEED}`, runSequence);
    if (SEQUENCES >= 20) expect(Math.min(seen.applications, seen.expired, seen.meteredOnly), JSON.stringify(seen)).toBeGreaterThan(0);
  }, 3_600_000);
});
