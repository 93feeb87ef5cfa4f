import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyDiscounts } from "@/lib/money";
import { computeTaxes, divideHalfEven, shareDiscount, type RateTerms } from "@/lib/tax-rates/compute";

const rate = (id: string, percent: number, inclusive: boolean): RateTerms => ({ id, percentageE4: Math.round(percent * 10_000), inclusive });

const arbRate = fc.record({
  id: fc.constantFrom("txr_a", "txr_b", "txr_c", "txr_d"),
  percentageE4: fc.integer({ min: 0, max: 1_000_000 }),
  inclusive: fc.boolean(),
});
const arbLine = fc.record({
  quantity: fc.integer({ min: 1, max: 1000 }),
  unit: fc.integer({ min: 0, max: 10_000_000 }),
  rates: fc.uniqueArray(arbRate, { maxLength: 3, selector: (r) => r.id }),
});
const arbInvoice = fc.record({
  lines: fc.array(arbLine, { minLength: 1, maxLength: 20 }),
  discount: fc.oneof(fc.record({ percentOffBps: fc.integer({ min: 0, max: 10_000 }) }), fc.record({ amountOffAtom: fc.integer({ min: 0, max: 1_000_000_000 }) })),
});

function taxesOf(invoice: { lines: { quantity: number; unit: number; rates: RateTerms[] }[]; discount: { percentOffBps: number } | { amountOffAtom: number } }, reverseCharge = false) {
  const lines = invoice.lines.map((line) => ({ amountAtom: line.quantity * line.unit, rates: line.rates }));
  const subtotal = lines.reduce((sum, line) => sum + line.amountAtom, 0);
  const { discountAtom } = applyDiscounts(subtotal, [invoice.discount]);
  return { subtotal, discountAtom, result: computeTaxes(lines, discountAtom, { reverseCharge }) };
}

describe("tax arithmetic", () => {
  it("rounds half to even", () => {
    expect([5n, 15n, 25n, 14n, 16n].map((n) => divideHalfEven(n, 10n))).toEqual([0n, 2n, 2n, 1n, 2n]);
  });

  it("adds exclusive tax and shows the tax contained in an inclusive price (per line)", () => {
    const vat19 = rate("txr_de", 19, false);
    const incl20 = rate("txr_fr", 20, true);
    const result = computeTaxes([{ amountAtom: 1000, rates: [vat19] }, { amountAtom: 1200, rates: [incl20] }], 0, { reverseCharge: false });
    expect(result.lines.map((line) => line.taxes.map((t) => t.amount_atom))).toEqual([[190], [200]]);
    expect(result).toMatchObject({ taxAtom: 390, exclusiveTaxAtom: 190 });
    // 0.5 atoms: half to even (12.5 → 12, 13.5 → 14).
    const half = computeTaxes([{ amountAtom: 125, rates: [rate("txr_x", 10, false)] }, { amountAtom: 135, rates: [rate("txr_x", 10, false)] }], 0, { reverseCharge: false });
    expect(half.lines.map((line) => line.taxes[0]!.amount_atom)).toEqual([12, 14]);
    expect(half.totalTaxes).toEqual([{ tax_rate: "txr_x", amount_atom: 26, inclusive: false, taxable_amount_atom: 260, taxability_reason: "standard_rated" }]);
  });

  it("shares a discount among lines exactly", () => {
    expect(shareDiscount([100, 100, 100], 100)).toEqual([34, 33, 33]);
    expect(shareDiscount([0, 0], 0)).toEqual([0, 0]);
  });

  it("over random invoices: Σ line tax = invoice tax, the discount is fully shared, inclusive totals unchanged, reverse charge yields 0", () => {
    fc.assert(
      fc.property(arbInvoice, (invoice) => {
        const { subtotal, discountAtom, result } = taxesOf(invoice);
        const lineTax = result.lines.flatMap((line) => line.taxes).reduce((sum, tax) => sum + tax.amount_atom, 0);
        expect(lineTax).toBe(result.taxAtom);
        expect(result.totalTaxes.reduce((sum, tax) => sum + tax.amount_atom, 0)).toBe(result.taxAtom);
        expect(result.lines.reduce((sum, line) => sum + line.discountAtom, 0)).toBe(discountAtom);
        for (const [index, line] of result.lines.entries()) {
          const amount = invoice.lines[index]!.quantity * invoice.lines[index]!.unit;
          expect(line.discountAtom).toBeGreaterThanOrEqual(0);
          expect(line.discountAtom).toBeLessThanOrEqual(amount);
          // What is contained never exceeds what was paid.
          expect(line.taxes.filter((t) => t.inclusive).reduce((sum, t) => sum + t.amount_atom, 0)).toBeLessThanOrEqual(amount - line.discountAtom);
        }
        // Inclusive-only invoices: the total is what the prices say, tax or not.
        const inclusiveOnly = { ...invoice, lines: invoice.lines.map((line) => ({ ...line, rates: line.rates.map((r) => ({ ...r, inclusive: true })) })) };
        const inclusive = taxesOf(inclusiveOnly);
        expect(inclusive.result.exclusiveTaxAtom).toBe(0);
        expect(inclusive.subtotal - inclusive.discountAtom + inclusive.result.exclusiveTaxAtom).toBe(subtotal - discountAtom);
        const reversed = taxesOf(invoice, true).result;
        expect(reversed.taxAtom).toBe(0);
        expect(reversed.lines.flatMap((line) => line.taxes).every((t) => t.amount_atom === 0 && t.taxability_reason === "reverse_charge")).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
