import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { priceLabel } from "@/components/objects/labels";
import { amountOf, perUnit, startingAt, tierPartsOf, type PriceTerms } from "@/lib/prices/amount";
import { tierBreakdown, tieredAmount, tierRangeText, type Tier } from "@/lib/prices/tiers";

/* amountOf, the one function that prices a price (issue 42), and the tier parts documents print. */

const TIERS: Tier[] = [
  { up_to: 10, unit_amount_atom: 100, flat_amount_atom: 50 },
  { up_to: null, unit_amount_atom: 80 },
];
const graduated: PriceTerms = { billingScheme: "tiered", unitAmountAtom: 0, tiersMode: "graduated", tiers: TIERS };
const volume: PriceTerms = { ...graduated, tiersMode: "volume" };

describe("amountOf", () => {
  it("prices per unit, graduated and volume prices for a quantity (by hand)", () => {
    expect(amountOf(perUnit(1500), 3)).toBe(4500n);
    expect(amountOf(graduated, 12)).toBe(BigInt(10 * 100 + 50 + 2 * 80));
    expect(amountOf(volume, 12)).toBe(BigInt(12 * 80));
    expect(amountOf(volume, 10)).toBe(BigInt(10 * 100 + 50));
    // A tiered price's unit_amount_atom (0) never enters its amount.
    expect(amountOf({ ...graduated, unitAmountAtom: 999 }, 12)).toBe(amountOf(graduated, 12));
  });

  it("refuses a quantity that is no non-negative safe integer", () => {
    for (const quantity of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1]) expect(() => amountOf(perUnit(1), quantity)).toThrow(RangeError);
  });

  it("the tier parts sum to the amount, and each part is units × unit amount + flat fee", () => {
    const arbTiers = fc
      .array(fc.record({ width: fc.integer({ min: 1, max: 50 }), unit: fc.integer({ min: 0, max: 10_000 }), flat: fc.integer({ min: 0, max: 10_000 }) }), { minLength: 1, maxLength: 5 })
      .map((rows) => {
        let top = 0;
        return rows.map((row, index): Tier => {
          top += row.width;
          return { up_to: index === rows.length - 1 ? null : top, unit_amount_atom: row.unit, flat_amount_atom: row.flat };
        });
      });
    fc.assert(
      fc.property(arbTiers, fc.constantFrom("graduated" as const, "volume" as const), fc.integer({ min: 0, max: 400 }), (tiers, mode, quantity) => {
        const parts = tierBreakdown(tiers, mode, quantity);
        expect(parts.reduce((sum, part) => sum + part.amountAtom, 0n)).toBe(tieredAmount(tiers, mode, quantity));
        for (const part of parts) expect(part.amountAtom).toBe(BigInt(part.units) * BigInt(part.unitAmountAtom) + BigInt(part.flatAmountAtom));
        // Graduated parts cover the quantity exactly; a volume part prices the whole quantity.
        expect(parts.reduce((sum, part) => sum + part.units, 0)).toBe(quantity);
      }),
    );
  });

  it("names the tiers a quantity falls in", () => {
    expect(tierPartsOf(perUnit(100), 3)).toBeNull();
    expect(tierPartsOf(graduated, 12)!.map((part) => [tierRangeText(part), part.units])).toEqual([["1–10", 10], ["11+", 2]]);
    expect(tierPartsOf(volume, 12)!.map((part) => [tierRangeText(part), part.units])).toEqual([["11+", 12]]);
    expect(tierPartsOf(graduated, 0)).toEqual([]);
    expect(startingAt(graduated)).toEqual({ unitAmountAtom: 100, flatAmountAtom: 50 });
  });
});

describe("the dashboard's price label", () => {
  const price = { id: "price_x", currency: "usd", type: "recurring", recurring: { interval: "month", interval_count: 1 } };
  it("shows a tiered price as tiered, from its first tier, never as $0.00", () => {
    const label = priceLabel({ ...price, unit_amount_atom: 0, billing_scheme: "tiered", tiers_mode: "graduated", tiers: TIERS.map((t) => ({ flat_amount_atom: 0, ...t })) });
    expect(label).toMatch(/^Tiered from \$1\.00 per unit \(\+ \$0\.50\) \/ month$/);
    expect(label).not.toContain("0.00 /");
    expect(priceLabel({ ...price, unit_amount_atom: 1500, billing_scheme: "per_unit", tiers_mode: null, tiers: null })).toBe("$15.00 / month");
  });
});
