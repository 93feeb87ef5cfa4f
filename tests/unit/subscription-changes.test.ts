import { describe, expect, it } from "vitest";
import { addUtcMonths } from "@/lib/time";
import { loadConfig } from "@/lib/config";
import { perUnit, type PriceTerms } from "@/lib/prices/amount";
import { prorate, type PricedItem } from "@/lib/subscription-changes/proration";

describe("the change-plan deprecation settings", () => {
  it("default to deprecated on 2026-11-22 with the sunset six calendar months later", () => {
    const { changePlan } = loadConfig({});
    expect(changePlan.deprecatedAt.toISOString()).toBe("2026-11-22T00:00:00.000Z");
    expect(changePlan.sunset.toISOString()).toBe("2027-05-22T00:00:00.000Z");
  });

  it("take both dates from the environment, a sunset exactly six months later included", () => {
    const { changePlan } = loadConfig({ CHANGE_PLAN_DEPRECATED_AT: "2025-01-01", CHANGE_PLAN_SUNSET_AT: "2025-07-01" });
    expect(changePlan.deprecatedAt.toISOString()).toBe("2025-01-01T00:00:00.000Z");
    expect(changePlan.sunset.toISOString()).toBe("2025-07-01T00:00:00.000Z");
    const later = loadConfig({ CHANGE_PLAN_DEPRECATED_AT: "2026-08-31T12:00:00Z", CHANGE_PLAN_SUNSET_AT: "2028-01-01T00:00:00+01:00" });
    expect(later.changePlan.sunset.toISOString()).toBe("2027-12-31T23:00:00.000Z");
    // Without a sunset: six calendar months, a missing day clamped (Aug 31 → Feb 28).
    expect(loadConfig({ CHANGE_PLAN_DEPRECATED_AT: "2026-08-31T12:00:00Z" }).changePlan.sunset.toISOString()).toBe("2027-02-28T12:00:00.000Z");
  });

  it.each([
    [{ CHANGE_PLAN_SUNSET_AT: "2027-05-21" }, /CHANGE_PLAN_SUNSET_AT .* must be at least 6 months after CHANGE_PLAN_DEPRECATED_AT .*2027-05-22T00:00:00.000Z/],
    [{ CHANGE_PLAN_DEPRECATED_AT: "2025-01-01", CHANGE_PLAN_SUNSET_AT: "2025-06-30T23:59:59Z" }, /earliest allowed sunset is 2025-07-01T00:00:00.000Z/],
    [{ CHANGE_PLAN_DEPRECATED_AT: "2025-01-01", CHANGE_PLAN_SUNSET_AT: "2024-12-01" }, /must be at least 6 months after/],
    [{ CHANGE_PLAN_SUNSET_AT: "next year" }, /CHANGE_PLAN_SUNSET_AT must be a date/],
    [{ CHANGE_PLAN_DEPRECATED_AT: "2026-13-01" }, /CHANGE_PLAN_DEPRECATED_AT must be a date/],
  ])("refuse %o", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("add calendar months in UTC", () => {
    expect(addUtcMonths(new Date("2026-11-22T00:00:00Z"), 6).toISOString()).toBe("2027-05-22T00:00:00.000Z");
    expect(addUtcMonths(new Date("2024-08-31T00:00:00Z"), 6).toISOString()).toBe("2025-02-28T00:00:00.000Z");
  });
});

describe("the proration of a change request", () => {
  const start = new Date("2026-01-01T00:00:00Z");
  const end = new Date("2026-01-31T00:00:00Z"); // 30 days
  const at = (days: number) => new Date(start.getTime() + days * 86_400_000);
  const base = { periodStart: start, periodEnd: end, billed: true };
  const item = (unitAmountAtom: number, quantity: number): PricedItem => ({ price: perUnit(unitAmountAtom), quantity, metered: false });

  it("prices a tiered item by its tiers for the quantity, not unit amount × quantity (issue 42)", () => {
    // Graduated: 100 per unit up to 10, 100 after: 10 → 20 units costs 1000 → 2000 per period.
    const graduated: PriceTerms = { billingScheme: "tiered", unitAmountAtom: 0, tiersMode: "graduated", tiers: [{ up_to: 10, unit_amount_atom: 100 }, { up_to: null, unit_amount_atom: 100 }] };
    const result = prorate({ ...base, before: [{ price: graduated, quantity: 10, metered: false }], after: [{ price: graduated, quantity: 20, metered: false }], prorationDate: at(15) });
    expect(result).toEqual({ amountDueNowAtom: BigInt(500), nextInvoiceAmountAtom: BigInt(2000) });
    // A metered item counts nothing in advance, whatever its price.
    expect(prorate({ ...base, before: [], after: [{ price: graduated, quantity: 1, metered: true }], prorationDate: at(15) }).nextInvoiceAmountAtom).toBe(BigInt(0));
  });

  it("charges the increase for the remaining part of the period, rounded down", () => {
    // 1000 → 3000 with 20 of 30 days left: 2000 × 20/30 = 1333.33… → 1333.
    const result = prorate({ ...base, before: [item(1000, 1)], after: [item(3000, 1)], prorationDate: at(10) });
    expect(result).toEqual({ amountDueNowAtom: BigInt(1333), nextInvoiceAmountAtom: BigInt(3000) });
  });

  it("nets the items: a mixed change pays its net increase, a downgrade is due nothing now (its credit: tests/unit/proration.test.ts)", () => {
    const before = [item(1000, 2), item(500, 1)];
    const mixed = prorate({ ...base, before, after: [item(1000, 3)], prorationDate: at(15) });
    expect(mixed).toEqual({ amountDueNowAtom: BigInt(250), nextInvoiceAmountAtom: BigInt(3000) });
    const down = prorate({ ...base, before, after: [item(1000, 1)], prorationDate: at(1) });
    expect(down).toEqual({ amountDueNowAtom: BigInt(0), nextInvoiceAmountAtom: BigInt(1000) });
  });

  it("charges nothing while the period is not billed, or once it has ended", () => {
    const change = { before: [item(1000, 1)], after: [item(3000, 1)] };
    expect(prorate({ ...base, ...change, billed: false, prorationDate: at(10) }).amountDueNowAtom).toBe(BigInt(0));
    expect(prorate({ ...base, ...change, prorationDate: at(31) }).amountDueNowAtom).toBe(BigInt(0));
    // Before the period started (clock skew): at most the whole increase.
    expect(prorate({ ...base, ...change, prorationDate: at(-1) }).amountDueNowAtom).toBe(BigInt(2000));
  });

  it("stays exact beyond 2^53 in the intermediate product", () => {
    const big = 2 ** 40;
    const result = prorate({ ...base, before: [], after: [item(big, 4000)], prorationDate: at(10) });
    expect(result.amountDueNowAtom).toBe((BigInt(big) * BigInt(4000) * BigInt(20)) / BigInt(30));
  });
});
