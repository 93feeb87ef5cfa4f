import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { perUnit } from "@/lib/prices/amount";
import { perPeriodAtom, prorate, prorationOutcome, signedProration, type PricedItem } from "@/lib/subscription-changes/proration";

/* The signed proration of a change (docs/billing.md, "Proration both ways"), and what each proration_behavior does with it. */

const start = new Date("2026-01-01T00:00:00Z");
const end = new Date("2026-01-31T00:00:00Z"); // 30 days
const at = (days: number) => new Date(start.getTime() + days * 86_400_000);
const base = { periodStart: start, periodEnd: end, billed: true };

/** A licensed per-unit item (tiered items: tests/unit/subscription-changes.test.ts and tests/unit/amount.test.ts). */
const item = (unitAmountAtom: number, quantity: number): PricedItem => ({ price: perUnit(unitAmountAtom), quantity, metered: false });

const arbItems = fc.array(
  fc.record({ unitAmountAtom: fc.integer({ min: 0, max: 10_000_000 }), quantity: fc.integer({ min: 1, max: 100_000 }) }).map(({ unitAmountAtom, quantity }) => item(unitAmountAtom, quantity)),
  { maxLength: 5 },
);
const arbPeriod = fc
  .record({ startMs: fc.integer({ min: 0, max: 2_000_000_000_000 }), lengthMs: fc.integer({ min: 1, max: 400 * 86_400_000 }), offsetMs: fc.integer({ min: -86_400_000, max: 401 * 86_400_000 }) })
  .map(({ startMs, lengthMs, offsetMs }) => ({
    periodStart: new Date(startMs),
    periodEnd: new Date(startMs + lengthMs),
    prorationDate: new Date(startMs + offsetMs),
    lengthMs,
    remainingMs: Math.min(Math.max(0, lengthMs - offsetMs), lengthMs),
  }));

/** The formula the spec states, written independently: floor(|Δ| × remaining / length) with Δ's sign. */
function expected(before: PricedItem[], after: PricedItem[], remainingMs: number, lengthMs: number): bigint {
  const delta = perPeriodAtom(after) - perPeriodAtom(before);
  const magnitude = ((delta < BigInt(0) ? -delta : delta) * BigInt(remainingMs)) / BigInt(lengthMs);
  return delta < BigInt(0) ? -magnitude : magnitude;
}

describe("signedProration", () => {
  it("credits a decrease by the upgrade's formula with the sign reversed, rounded down in magnitude", () => {
    // 3000 → 1000 with 20 of 30 days left: 2000 × 20/30 = 1333.33… → a credit of 1333.
    const down = signedProration({ ...base, before: [item(3000, 1)], after: [item(1000, 1)], prorationDate: at(10) });
    expect(down).toBe(BigInt(-1333));
    const up = signedProration({ ...base, before: [item(1000, 1)], after: [item(3000, 1)], prorationDate: at(10) });
    expect(up).toBe(BigInt(1333));
    // A quantity decrease: 3 × 1000 → 1 × 1000, half the period left.
    expect(signedProration({ ...base, before: [item(1000, 3)], after: [item(1000, 1)], prorationDate: at(15) })).toBe(BigInt(-1000));
  });

  it("matches the formula for any items and any proration date, and is antisymmetric", () => {
    fc.assert(
      fc.property(arbItems, arbItems, arbPeriod, (before, after, period) => {
        const input = { before, after, billed: true, ...period };
        const signed = signedProration(input);
        expect(signed).toBe(expected(before, after, period.remainingMs, period.lengthMs));
        // Swapping before and after swaps the sign exactly: the credit of a downgrade is the charge of the reverse upgrade.
        expect(signedProration({ ...input, before: after, after: before })).toBe(-signed);
        // Never more than the whole difference for one period.
        const delta = perPeriodAtom(after) - perPeriodAtom(before);
        expect(signed * delta >= BigInt(0)).toBe(true);
        expect((signed < BigInt(0) ? -signed : signed) <= (delta < BigInt(0) ? -delta : delta)).toBe(true);
      }),
    );
  });

  it("is 0 while the period is not billed, and once it has ended", () => {
    fc.assert(
      fc.property(arbItems, arbItems, arbPeriod, (before, after, period) => {
        expect(signedProration({ before, after, billed: false, ...period })).toBe(BigInt(0));
        expect(signedProration({ before, after, billed: true, ...period, prorationDate: period.periodEnd })).toBe(BigInt(0));
      }),
    );
  });

  it("prorate's due now is the positive part of it (the charge side, unchanged)", () => {
    fc.assert(
      fc.property(arbItems, arbItems, arbPeriod, (before, after, period) => {
        const input = { before, after, billed: true, ...period };
        const signed = signedProration(input);
        expect(prorate(input)).toEqual({ amountDueNowAtom: signed > BigInt(0) ? signed : BigInt(0), nextInvoiceAmountAtom: perPeriodAtom(after) });
      }),
    );
  });
});

describe("prorationOutcome", () => {
  it("create_prorations and always_invoice charge a positive proration now and credit a negative one; none does neither", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: BigInt(-(2 ** 53)), max: BigInt(2 ** 53) }), (signed) => {
        for (const behavior of ["create_prorations", "always_invoice"] as const) {
          const outcome = prorationOutcome(behavior, signed);
          expect(outcome.prorationAmountAtom).toBe(signed);
          expect(outcome.amountDueNowAtom - outcome.creditAtom).toBe(signed);
          expect(outcome.amountDueNowAtom >= BigInt(0) && outcome.creditAtom >= BigInt(0)).toBe(true);
          expect(outcome.amountDueNowAtom === BigInt(0) || outcome.creditAtom === BigInt(0)).toBe(true);
        }
        expect(prorationOutcome("none", signed)).toEqual({ prorationAmountAtom: BigInt(0), amountDueNowAtom: BigInt(0), creditAtom: BigInt(0) });
      }),
    );
  });
});
