/**
 * Tax arithmetic in integer atoms (docs/invoices-and-tax.md, "Rounding"). Percentages are
 * millionths of the whole (`percentageE4`: the percentage × 10 000, so 19 % is 190 000 and
 * 7.7 % is 77 000); every product is a BigInt, every division rounds half to even, per line.
 *
 * - The invoice's discount is shared among the lines in proportion to their amounts (largest
 *   remainder, ties to the earlier line), so the shares add up to the discount exactly.
 * - A line's taxable amount is its amount less its share.
 * - Inclusive rates are contained in the taxable amount: each is taxable × p / (1 + Σ inclusive p).
 * - Exclusive rates add to it: each is (taxable − the inclusive taxes) × p.
 * - Reverse charge: every rate applies at 0 (the buyer accounts for the tax).
 * - The invoice's tax is the sum of its lines' taxes; its total is subtotal − discount + the
 *   exclusive taxes (inclusive taxes are already in the subtotal).
 */
import type { TaxAmount } from "./schema";

export const PERCENT_E4_WHOLE = 1_000_000;

export type RateTerms = { id: string; percentageE4: number; inclusive: boolean };

export type LineTaxes = { discountAtom: number; taxes: TaxAmount[] };

export type InvoiceTaxes = {
  lines: LineTaxes[];
  taxAtom: number;
  exclusiveTaxAtom: number;
  /** Per rate, in first-use order: the sums of the lines' amounts. */
  totalTaxes: TaxAmount[];
};

/** n / d rounded half to even (n ≥ 0, d > 0). */
export function divideHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (2n * r > d || (2n * r === d && q % 2n === 1n)) return q + 1n;
  return q;
}

/** `discountAtom` shared among `amounts` in proportion, exactly (largest remainder). */
export function shareDiscount(amounts: readonly number[], discountAtom: number): number[] {
  const total = amounts.reduce((sum, amount) => sum + BigInt(amount), 0n);
  if (total === 0n || discountAtom === 0) return amounts.map(() => 0);
  const discount = BigInt(discountAtom);
  const exact = amounts.map((amount) => ({ floor: (BigInt(amount) * discount) / total, rest: (BigInt(amount) * discount) % total }));
  let left = discount - exact.reduce((sum, share) => sum + share.floor, 0n);
  const order = exact.map((share, index) => ({ index, rest: share.rest })).sort((a, b) => (a.rest === b.rest ? a.index - b.index : a.rest > b.rest ? -1 : 1));
  const shares = exact.map((share) => share.floor);
  for (const { index } of order) {
    if (left === 0n) break;
    shares[index]! += 1n;
    left -= 1n;
  }
  return shares.map(Number);
}

export function computeTaxes(
  lines: readonly { amountAtom: number; rates: readonly RateTerms[] }[],
  discountAtom: number,
  options: { reverseCharge: boolean },
): InvoiceTaxes {
  const shares = shareDiscount(
    lines.map((line) => line.amountAtom),
    discountAtom,
  );
  const reason = options.reverseCharge ? "reverse_charge" : "standard_rated";
  const lineTaxes = lines.map((line, index): LineTaxes => {
    const taxable = BigInt(line.amountAtom - shares[index]!);
    const inclusiveSum = line.rates.filter((rate) => rate.inclusive).reduce((sum, rate) => sum + BigInt(rate.percentageE4), 0n);
    const whole = BigInt(PERCENT_E4_WHOLE);
    const taxes: TaxAmount[] = [];
    let contained = 0n;
    for (const rate of line.rates.filter((r) => r.inclusive)) {
      const amount = options.reverseCharge ? 0n : divideHalfEven(taxable * BigInt(rate.percentageE4), whole + inclusiveSum);
      contained += amount;
      taxes.push({ tax_rate: rate.id, amount_atom: Number(amount), inclusive: true, taxable_amount_atom: Number(taxable), taxability_reason: reason });
    }
    const net = taxable - contained;
    for (const rate of line.rates.filter((r) => !r.inclusive)) {
      const amount = options.reverseCharge ? 0n : divideHalfEven(net * BigInt(rate.percentageE4), whole);
      taxes.push({ tax_rate: rate.id, amount_atom: Number(amount), inclusive: false, taxable_amount_atom: Number(net), taxability_reason: reason });
    }
    // Back in the order the line lists its rates.
    const position = new Map(line.rates.map((rate, i) => [rate.id, i]));
    taxes.sort((a, b) => position.get(a.tax_rate)! - position.get(b.tax_rate)!);
    return { discountAtom: shares[index]!, taxes };
  });
  const all = lineTaxes.flatMap((line) => line.taxes);
  const taxAtom = all.reduce((sum, tax) => sum + tax.amount_atom, 0);
  const exclusiveTaxAtom = all.filter((tax) => !tax.inclusive).reduce((sum, tax) => sum + tax.amount_atom, 0);
  return { lines: lineTaxes, taxAtom, exclusiveTaxAtom, totalTaxes: sumTaxesByRate(all) };
}

/**
 * Per rate, in first-use order: the sums of the taxes' amounts and taxable amounts (the other
 * fields of the rate's first tax). An invoice's and a credit note's `total_taxes`.
 */
export function sumTaxesByRate(taxes: readonly TaxAmount[]): TaxAmount[] {
  const byRate = new Map<string, TaxAmount>();
  for (const tax of taxes) {
    const sum = byRate.get(tax.tax_rate);
    if (sum) {
      sum.amount_atom += tax.amount_atom;
      sum.taxable_amount_atom += tax.taxable_amount_atom;
    } else byRate.set(tax.tax_rate, { ...tax });
  }
  return [...byRate.values()];
}
