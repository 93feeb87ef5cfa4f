/**
 * The preview of a change request, in integer atoms (BigInt: quantity × unit amount × milliseconds
 * overflows 2^53 long before any realistic price does).
 *
 * - per-period amount of a set of items: Σ unit_amount × quantity;
 * - next invoice: the per-period amount of the items after the change;
 * - due now: floor(max(0, after − before) × remaining / length), where `length` is the current
 *   period in milliseconds and `remaining` the part of it after the proration date (clamped to
 *   [0, length]). A downgrade (after < before) is due 0 and gives no credit. Nothing is due while
 *   nothing is billed for the period (trialing, paused).
 */

export type PricedItem = { unitAmountAtom: number; quantity: number };

export function perPeriodAtom(items: readonly PricedItem[]): bigint {
  return items.reduce((sum, item) => sum + BigInt(item.unitAmountAtom) * BigInt(item.quantity), BigInt(0));
}

export type ProrationInput = {
  before: readonly PricedItem[];
  after: readonly PricedItem[];
  periodStart: Date;
  periodEnd: Date;
  prorationDate: Date;
  /** False while the current period is not billed (trialing, paused): nothing is due now. */
  billed: boolean;
};

export type Proration = { amountDueNowAtom: bigint; nextInvoiceAmountAtom: bigint };

export function prorate(input: ProrationInput): Proration {
  const before = perPeriodAtom(input.before);
  const after = perPeriodAtom(input.after);
  const length = BigInt(Math.max(0, input.periodEnd.getTime() - input.periodStart.getTime()));
  const remainingMs = Math.min(
    Math.max(0, input.periodEnd.getTime() - input.prorationDate.getTime()),
    input.periodEnd.getTime() - input.periodStart.getTime(),
  );
  const increase = after - before;
  const zero = BigInt(0);
  // BigInt division truncates toward zero: for non-negative operands that is the floor.
  const amountDueNowAtom = !input.billed || increase <= zero || length === zero ? zero : (increase * BigInt(Math.max(0, remainingMs))) / length;
  return { amountDueNowAtom, nextInvoiceAmountAtom: after };
}
