import { describe, expect, it } from "vitest";
import { tieredAmount, tiersProblem, type Tier } from "@/lib/prices/tiers";

// Stripe's documented example shape: first 5 units at 5.00 + 1.00 flat, next 5 at 4.00, then 3.00 with a 2.00 flat fee.
const TIERS: Tier[] = [
  { up_to: 5, unit_amount_atom: 500, flat_amount_atom: 100 },
  { up_to: 10, unit_amount_atom: 400 },
  { up_to: null, unit_amount_atom: 300, flat_amount_atom: 200 },
];

/** Computed by hand, unit by unit: [quantity, graduated, volume]. */
const REFERENCE: [number, number, number][] = [
  [0, 0, 100],
  [1, 500 + 100, 500 + 100],
  [5, 2500 + 100, 2500 + 100],
  [6, 2600 + 400, 6 * 400],
  [10, 2600 + 2000, 10 * 400],
  [11, 4600 + 300 + 200, 11 * 300 + 200],
  [100, 4600 + 90 * 300 + 200, 100 * 300 + 200],
];

describe("tiered prices", () => {
  it.each(REFERENCE)("prices %i units: graduated %i, volume %i", (quantity, graduated, volume) => {
    expect(tieredAmount(TIERS, "graduated", quantity)).toBe(BigInt(graduated));
    expect(tieredAmount(TIERS, "volume", quantity)).toBe(BigInt(volume));
  });

  it("a single unbounded tier is per-unit pricing; huge quantities stay exact", () => {
    const flat: Tier[] = [{ up_to: null, unit_amount_atom: 7 }];
    expect(tieredAmount(flat, "graduated", 3)).toBe(21n);
    expect(tieredAmount(flat, "volume", 3)).toBe(21n);
    expect(tieredAmount(flat, "graduated", Number.MAX_SAFE_INTEGER)).toBe(7n * BigInt(Number.MAX_SAFE_INTEGER));
  });

  it.each([
    [[], /at least one/],
    [[{ up_to: 5, unit_amount_atom: 1 }], /last tier/],
    [[{ up_to: null, unit_amount_atom: 1 }, { up_to: null, unit_amount_atom: 1 }], /Only the last/],
    [[{ up_to: 5, unit_amount_atom: 1 }, { up_to: 5, unit_amount_atom: 1 }, { up_to: null, unit_amount_atom: 1 }], /increase/],
  ] as [Tier[], RegExp][])("refuses tiers %j", (tiers, problem) => {
    expect(tiersProblem(tiers)).toMatch(problem);
  });

  it("accepts well-formed tiers", () => {
    expect(tiersProblem(TIERS)).toBeNull();
  });
});
