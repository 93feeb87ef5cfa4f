/**
 * Integer money arithmetic. Amounts are whole atoms (the currency's smallest unit) and
 * percentages are basis points (1 bps = 0.01 %), so no float ever touches an amount.
 *
 * Rounding rule: a percentage discount is rounded DOWN to the whole atom (floor), so a merchant
 * never gives away more than the stated percentage; the customer pays the leftover fraction.
 * 33.33 % of 100 atoms is a discount of 33 (not 33.33), total 67.
 *
 * Stacking rule: discounts apply in the order given, each to what is left after the previous ones
 * (10 % then 10 % of 1000 is 100 + 90), so the total can never go below 0 and
 * `discountAtom + totalAtom === subtotalAtom` always holds.
 */

export const BPS_PER_WHOLE = 10_000;

export type Discount = { percentOffBps: number } | { amountOffAtom: number };

export type DiscountResult = {
  /** The sum of all discounts, never more than the subtotal. */
  discountAtom: number;
  /** `subtotalAtom - discountAtom`, never negative. */
  totalAtom: number;
  /** What each discount took off, in the order given. */
  amountsAtom: number[];
};

function assertAtoms(name: string, value: number): void {
  // Above 2^53 - 1 integers are no longer exact in a JS number: refuse rather than drift.
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer of atoms, got ${value}.`);
  }
}

function assertBps(value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > BPS_PER_WHOLE) {
    throw new RangeError(`percent off must be an integer from 0 to ${BPS_PER_WHOLE} basis points, got ${value}.`);
  }
}

/** The discount of `bps` basis points on `amountAtom`, rounded down to a whole atom. */
export function percentOff(amountAtom: number, bps: number): number {
  assertAtoms("amountAtom", amountAtom);
  assertBps(bps);
  // amount × bps can exceed 2^53 (e.g. 2^50 × 10 000), so multiply in BigInt; the quotient is ≤ amount.
  return Number((BigInt(amountAtom) * BigInt(bps)) / BigInt(BPS_PER_WHOLE));
}

/** A fixed discount of `offAtom`, capped at `amountAtom` (a total never goes below 0). */
export function amountOff(amountAtom: number, offAtom: number): number {
  assertAtoms("amountAtom", amountAtom);
  assertAtoms("offAtom", offAtom);
  return Math.min(amountAtom, offAtom);
}

/** Applies `discounts` in order, each to the amount left by the previous ones. */
export function applyDiscounts(subtotalAtom: number, discounts: readonly Discount[]): DiscountResult {
  assertAtoms("subtotalAtom", subtotalAtom);
  let remaining = subtotalAtom;
  const amountsAtom = discounts.map((discount) => {
    const off =
      "percentOffBps" in discount ? percentOff(remaining, discount.percentOffBps) : amountOff(remaining, discount.amountOffAtom);
    remaining -= off;
    return off;
  });
  return { discountAtom: subtotalAtom - remaining, totalAtom: remaining, amountsAtom };
}
