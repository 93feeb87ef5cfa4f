/**
 * The proration of a change, in integer atoms (BigInt: quantity × unit amount × milliseconds
 * overflows 2^53 long before any realistic price does). Pure (the change requests and the invoice
 * preview both read it).
 *
 * - per-period amount of a set of items: Σ amountOf(price, quantity) (lib/prices/amount.ts: per
 *   unit or by the price's tiers) of the licensed items; a metered item counts 0 (its usage is
 *   billed in arrears, its amount is not known in advance);
 * - next invoice: the per-period amount of the items after the change;
 * - signed proration (`signedProration`): (after − before) × remaining / length, rounded toward
 *   zero, so a charge is floor(increase × remaining / length) and a credit floor(decrease ×
 *   remaining / length) with the sign reversed. `length` is the current period in milliseconds,
 *   `remaining` the part of it after the proration date (clamped to [0, length]). 0 while nothing
 *   is billed for the period (trialing, paused).
 * - what a change request does with it (`prorationOutcome`): `create_prorations` and
 *   `always_invoice` charge a positive proration now and credit a negative one to the customer's
 *   balance; `none` does neither (docs/billing.md, "Proration both ways").
 */

import { amountOf, type PriceTerms } from "@/lib/prices/amount";
import type { ProrationBehavior } from "./statuses";

export { PRORATION_BEHAVIORS, type ProrationBehavior } from "./statuses";

export type PricedItem = { price: PriceTerms; quantity: number; metered: boolean };

export function perPeriodAtom(items: readonly PricedItem[]): bigint {
  return items.reduce((sum, item) => (item.metered ? sum : sum + amountOf(item.price, item.quantity)), BigInt(0));
}

export type ProrationInput = {
  before: readonly PricedItem[];
  after: readonly PricedItem[];
  periodStart: Date;
  periodEnd: Date;
  prorationDate: Date;
  /** False while the current period is not billed (trialing, paused): nothing is prorated. */
  billed: boolean;
};

const ZERO = BigInt(0);

/**
 * The signed proration of replacing `before` by `after` at the proration date, for the rest of the
 * current period: > 0 the customer owes it, < 0 it is owed to the customer. |result| =
 * floor(|after − before| × remaining / length).
 */
export function signedProration(input: ProrationInput): bigint {
  const length = input.periodEnd.getTime() - input.periodStart.getTime();
  if (!input.billed || length <= 0) return ZERO;
  const remaining = Math.min(Math.max(0, input.periodEnd.getTime() - input.prorationDate.getTime()), length);
  // BigInt division truncates toward zero: the floor of the magnitude, whichever the sign.
  return ((perPeriodAtom(input.after) - perPeriodAtom(input.before)) * BigInt(remaining)) / BigInt(length);
}

export type Proration = { amountDueNowAtom: bigint; nextInvoiceAmountAtom: bigint };

/** The default behaviour's charge side: due now is the positive part of the signed proration. */
export function prorate(input: ProrationInput): Proration {
  const signed = signedProration(input);
  return { amountDueNowAtom: signed > ZERO ? signed : ZERO, nextInvoiceAmountAtom: perPeriodAtom(input.after) };
}

export type ProrationOutcome = {
  /** What the change request applies: the signed proration, or 0 for `none`. */
  prorationAmountAtom: bigint;
  /** Collected before the steps are applied (the proration invoice). */
  amountDueNowAtom: bigint;
  /** Credited to the customer's balance with the last step. */
  creditAtom: bigint;
};

export function prorationOutcome(behavior: ProrationBehavior, signed: bigint): ProrationOutcome {
  const amount = behavior === "none" ? ZERO : signed;
  return { prorationAmountAtom: amount, amountDueNowAtom: amount > ZERO ? amount : ZERO, creditAtom: amount < ZERO ? -amount : ZERO };
}
