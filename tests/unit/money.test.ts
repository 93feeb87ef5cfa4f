import { describe, expect, it } from "vitest";
import { amountOff, applyDiscounts, percentOff, type Discount } from "@/lib/money";

/** A seeded generator (mulberry32), so a failing case can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("percentOff: floor of the discount", () => {
  it.each([
    // amount, bps, discount
    [0, 2500, 0],
    [1, 5000, 0], // half an atom is not given away
    [1, 9999, 0],
    [1, 10_000, 1],
    [3, 5000, 1], // 1.5 → 1
    [99, 5000, 49], // 49.5 → 49
    [100, 3333, 33], // 33.33 %
    [1000, 3333, 333], // 333.3 → 333
    [999, 3333, 332], // 332.9667 → 332
    [10_000, 3333, 3333],
    [1999, 2550, 509], // 509.745 → 509
    [12_345, 1, 1], // 0.01 % of 123.45 → 1.2345 → 1
    [5, 10_000, 5],
    [Number.MAX_SAFE_INTEGER, 10_000, Number.MAX_SAFE_INTEGER], // no overflow: BigInt product
    [Number.MAX_SAFE_INTEGER, 5000, 4_503_599_627_370_495],
  ])("%i atoms at %i bps → %i", (amount, bps, expected) => {
    expect(percentOff(amount, bps)).toBe(expected);
  });

  it.each([
    [-1, 100],
    [1.5, 100],
    [Number.MAX_SAFE_INTEGER + 1, 100],
    [Number.NaN, 100],
    [100, -1],
    [100, 10_001],
    [100, 33.3],
  ])("refuses %d atoms at %d bps", (amount, bps) => {
    expect(() => percentOff(amount, bps)).toThrow(RangeError);
  });
});

describe("amountOff: capped at the amount", () => {
  it.each([
    [1000, 250, 250],
    [1000, 1000, 1000],
    [1000, 5000, 1000], // larger than the total → the total goes to 0, not below
    [0, 500, 0],
    [1, 0, 0],
  ])("%i atoms minus %i → discount %i", (amount, off, expected) => {
    expect(amountOff(amount, off)).toBe(expected);
  });

  it("refuses fractions and negatives", () => {
    expect(() => amountOff(100, 0.5)).toThrow(RangeError);
    expect(() => amountOff(100, -5)).toThrow(RangeError);
    expect(() => amountOff(-100, 5)).toThrow(RangeError);
  });
});

describe("applyDiscounts", () => {
  const cases: { name: string; subtotal: number; discounts: Discount[]; discount: number; total: number; amounts: number[] }[] = [
    { name: "no discount", subtotal: 1000, discounts: [], discount: 0, total: 1000, amounts: [] },
    { name: "25 %", subtotal: 1000, discounts: [{ percentOffBps: 2500 }], discount: 250, total: 750, amounts: [250] },
    { name: "33.33 % of an odd amount", subtotal: 1001, discounts: [{ percentOffBps: 3333 }], discount: 333, total: 668, amounts: [333] },
    { name: "1 atom at 50 %", subtotal: 1, discounts: [{ percentOffBps: 5000 }], discount: 0, total: 1, amounts: [0] },
    { name: "100 %", subtotal: 4321, discounts: [{ percentOffBps: 10_000 }], discount: 4321, total: 0, amounts: [4321] },
    { name: "amount off", subtotal: 1000, discounts: [{ amountOffAtom: 300 }], discount: 300, total: 700, amounts: [300] },
    {
      name: "amount off larger than the total",
      subtotal: 1000,
      discounts: [{ amountOffAtom: 1500 }],
      discount: 1000,
      total: 0,
      amounts: [1000],
    },
    {
      name: "stacked percentages apply to what is left",
      subtotal: 1000,
      discounts: [{ percentOffBps: 1000 }, { percentOffBps: 1000 }],
      discount: 190,
      total: 810,
      amounts: [100, 90],
    },
    {
      name: "percentage then amount",
      subtotal: 999,
      discounts: [{ percentOffBps: 3333 }, { amountOffAtom: 100 }],
      discount: 432,
      total: 567,
      amounts: [332, 100],
    },
    {
      name: "amount then percentage",
      subtotal: 999,
      discounts: [{ amountOffAtom: 100 }, { percentOffBps: 3333 }],
      discount: 399,
      total: 600,
      amounts: [100, 299],
    },
    {
      name: "stacked amounts past zero stop at zero",
      subtotal: 500,
      discounts: [{ amountOffAtom: 300 }, { amountOffAtom: 300 }, { percentOffBps: 5000 }],
      discount: 500,
      total: 0,
      amounts: [300, 200, 0],
    },
  ];

  it.each(cases)("$name", ({ subtotal, discounts, discount, total, amounts }) => {
    expect(applyDiscounts(subtotal, discounts)).toEqual({ discountAtom: discount, totalAtom: total, amountsAtom: amounts });
  });

  it("refuses an unsafe subtotal", () => {
    expect(() => applyDiscounts(Number.MAX_SAFE_INTEGER + 2, [])).toThrow(RangeError);
    expect(() => applyDiscounts(10.5, [])).toThrow(RangeError);
  });

  it("never drifts and never goes negative, over many random amounts and discount stacks", () => {
    const next = random(20_261_122);
    const int = (max: number) => Math.floor(next() * (max + 1));
    for (let i = 0; i < 5_000; i++) {
      // Mostly everyday amounts, sometimes huge ones near the safe-integer limit.
      const subtotal = i % 10 === 0 ? Number.MAX_SAFE_INTEGER - int(1_000_000) : int(10_000_000);
      const discounts: Discount[] = Array.from({ length: int(4) }, () =>
        next() < 0.5 ? { percentOffBps: int(10_000) } : { amountOffAtom: int(subtotal * 2 > Number.MAX_SAFE_INTEGER ? subtotal : subtotal * 2) },
      );
      const { discountAtom, totalAtom, amountsAtom } = applyDiscounts(subtotal, discounts);
      expect(Number.isSafeInteger(totalAtom) && Number.isSafeInteger(discountAtom)).toBe(true);
      expect(totalAtom).toBeGreaterThanOrEqual(0);
      expect(totalAtom).toBeLessThanOrEqual(subtotal);
      expect(totalAtom + discountAtom).toBe(subtotal);
      expect(amountsAtom.reduce((sum, amount) => sum + amount, 0)).toBe(discountAtom);
      expect(amountsAtom.every((amount) => Number.isSafeInteger(amount) && amount >= 0)).toBe(true);
    }
  });
});
