import { describe, expect, it } from "vitest";
import { amountOffIn } from "@/lib/coupons/amount-off";
import { formatAtoms } from "@/lib/money";
import { amountOf, termsIn, type PriceInCurrencies } from "@/lib/prices/amount";
import { computeTaxes } from "@/lib/tax-rates/compute";

/*
 * Rounding per currency exponent (docs/billing.md, "Currency options"), against a table written by
 * hand: one price in USD (2 decimals), JPY (0) and BHD (3), per unit and tiered, taxed at 19 %
 * exclusive and inclusive. Every amount is whole atoms of its currency, and every tax is rounded
 * half to even to one atom of that currency: a cent, a yen, a fils. The expected values were worked
 * out on paper, not by the code under test.
 */

const perUnit: PriceInCurrencies = {
  currency: "usd",
  billingScheme: "per_unit",
  unitAmountAtom: 1999, // $19.99
  tiersMode: null,
  tiers: null,
  currencyOptions: { jpy: { unit_amount_atom: 2999 }, bhd: { unit_amount_atom: 7495 } }, // ¥2,999; BHD 7.495
};

const tiers = (first: number, rest: number, flat: number) => [
  { up_to: 10, unit_amount_atom: first },
  { up_to: null, unit_amount_atom: rest, flat_amount_atom: flat },
];
const tiered = (mode: "graduated" | "volume"): PriceInCurrencies => ({
  currency: "usd",
  billingScheme: "tiered",
  unitAmountAtom: 0,
  tiersMode: mode,
  tiers: tiers(100, 50, 500),
  currencyOptions: { jpy: { tiers: tiers(150, 75, 800) }, bhd: { tiers: tiers(375, 190, 1885) } },
});

const RATE = 190_000; // 19 %
const taxOf = (amountAtom: number, inclusive: boolean, percentageE4 = RATE) =>
  computeTaxes([{ amountAtom, rates: [{ id: "txr", percentageE4, inclusive }] }], 0, { reverseCharge: false }).taxAtom;

// currency, price, quantity, line amount, 19 % exclusive, 19 % inclusive (contained), printed (en)
const TABLE: [string, () => PriceInCurrencies, number, number, number, number, string][] = [
  // 3 × 19.99 = 59.97; × 0.19 = 11.3943 → 11.39; 59.97 × 19/119 = 9.575… → 9.58
  ["usd", () => perUnit, 3, 5997, 1139, 958, "$59.97"],
  // 3 × 2999 = 8997; × 0.19 = 1709.43 → 1709; 8997 × 19/119 = 1436.49… → 1436
  ["jpy", () => perUnit, 3, 8997, 1709, 1436, "¥8,997"],
  // 3 × 7.495 = 22.485; × 0.19 = 4.27215 → 4.272; 22.485 × 19/119 = 3.59004… → 3.590
  ["bhd", () => perUnit, 3, 22485, 4272, 3590, "BHD 22.485"],
  // graduated, 12 units: 10 × 1.00 + 2 × 0.50 + 5.00 = 16.00; tax 3.04; contained 2.5546… → 2.55
  ["usd", () => tiered("graduated"), 12, 1600, 304, 255, "$16.00"],
  // 10 × 150 + 2 × 75 + 800 = 2450; × 0.19 = 465.5: a tie, half to even → 466; × 19/119 = 391.18 → 391
  ["jpy", () => tiered("graduated"), 12, 2450, 466, 391, "¥2,450"],
  // 10 × 0.375 + 2 × 0.190 + 1.885 = 6.015; × 0.19 = 1.14285 → 1.143; × 19/119 = 0.96038 → 0.960
  ["bhd", () => tiered("graduated"), 12, 6015, 1143, 960, "BHD 6.015"],
  // volume, 12 units, all in the last tier: 12 × 0.50 + 5.00 = 11.00; 2.09; 1.7563… → 1.76
  ["usd", () => tiered("volume"), 12, 1100, 209, 176, "$11.00"],
  // 12 × 75 + 800 = 1700; 323; 271.43 → 271
  ["jpy", () => tiered("volume"), 12, 1700, 323, 271, "¥1,700"],
  // 12 × 0.190 + 1.885 = 4.165; 0.79135 → 0.791; 0.66500… → 0.665
  ["bhd", () => tiered("volume"), 12, 4165, 791, 665, "BHD 4.165"],
];

describe("one price in USD, JPY and BHD: amounts and taxes rounded to each currency's atom", () => {
  it.each(TABLE)("%s, %#: amount, exclusive tax, inclusive tax, printed", (currency, price, quantity, amount, exclusive, inclusive, printed) => {
    const terms = termsIn(price(), currency);
    expect(terms).not.toBeNull();
    const lineAtom = Number(amountOf(terms!, quantity));
    expect(lineAtom).toBe(amount);
    expect(taxOf(lineAtom, false)).toBe(exclusive);
    expect(taxOf(lineAtom, true)).toBe(inclusive);
    // Printed with the currency's ISO decimals (the NBSP ICU puts after a code is a space here).
    expect(formatAtoms(lineAtom, currency, "en").replace(/\u00a0/g, " ")).toBe(printed);
  });

  it("half to even at the atom of each currency: ¥50 and ¥150 at 7 % are ¥3.5 → ¥4 and ¥10.5 → ¥10", () => {
    expect(taxOf(50, false, 70_000)).toBe(4);
    expect(taxOf(150, false, 70_000)).toBe(10);
    // BHD, three decimals: 0.050 BHD at 7 % is 3.5 fils → 4; 0.150 BHD is 10.5 fils → 10.
    expect(taxOf(Number(amountOf(termsIn({ ...perUnit, currencyOptions: { bhd: { unit_amount_atom: 50 } } }, "bhd")!, 1)), false, 70_000)).toBe(4);
    expect(taxOf(Number(amountOf(termsIn({ ...perUnit, currencyOptions: { bhd: { unit_amount_atom: 50 } } }, "bhd")!, 3)), false, 70_000)).toBe(10);
  });

  it("a currency the price has no amount in: null (the caller's 422), never a converted amount", () => {
    expect(termsIn(perUnit, "eur")).toBeNull();
    expect(termsIn(perUnit, "USD")).toMatchObject({ unitAmountAtom: 1999 });
  });

  it("an amount-off coupon: its own amount, its option's, or none", () => {
    const coupon = { amountOffAtom: 500, currency: "usd", currencyOptions: { jpy: { amount_off_atom: 700 }, bhd: { amount_off_atom: 1885 } } };
    expect(amountOffIn(coupon, "usd")).toBe(500);
    expect(amountOffIn(coupon, "jpy")).toBe(700);
    expect(amountOffIn(coupon, "bhd")).toBe(1885);
    expect(amountOffIn(coupon, "eur")).toBeNull();
    expect(amountOffIn({ amountOffAtom: null, currency: null, currencyOptions: {} }, "usd")).toBeNull();
  });
});
