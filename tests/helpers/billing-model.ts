/*
 * An independent model of the money, for the property tests (issue #42, point 5). It imports
 * nothing from lib/: every rule is written again here from docs/invoices-and-tax.md,
 * docs/credit-notes-and-balance.md, docs/billing.md (its "Currency options" too: a price's and an
 * amount-off coupon's amounts per currency, never converted) and the lead's rules for issue #42
 * (RULES-42.md: once coupons, amountOf for tiered quantities, voids returning the balance, per-line
 * credit limits with cumulative tax). A second, separately written copy of each rule is the point:
 * the service and the model must agree on every amount, and where they disagree one of them is
 * wrong.
 *
 * All amounts are integer atoms; products and quotients are BigInt.
 */

export const PERCENT_E4_WHOLE = 1_000_000n;
const BPS_WHOLE = 10_000n;

/** n / d, half to even (n ≥ 0, d > 0): 712.5 → 712, 713.5 → 714. */
export function halfEven(n: bigint, d: bigint): bigint {
  const quotient = n / d;
  const twice = 2n * (n % d);
  if (twice > d) return quotient + 1n;
  if (twice === d) return quotient % 2n === 0n ? quotient : quotient + 1n;
  return quotient;
}

// ---- prices ---------------------------------------------------------------------------------

export type ModelTier = { upTo: number | null; unit: number; flat: number };
export type ModelPrice =
  | { scheme: "per_unit"; unit: number }
  | { scheme: "graduated"; tiers: readonly ModelTier[] }
  | { scheme: "volume"; tiers: readonly ModelTier[] };

/**
 * A price in its currencies (docs/billing.md, "Currency options"): its own `currency` and the
 * terms in each currency it bills in, its own included, in atoms of that currency (JPY has no
 * minor unit, BHD three: the model never converts, every amount is the merchant's own). The scheme
 * and the tiers' bounds are the same in every currency; only the amounts differ.
 */
export type ModelMultiPrice = { currency: string; in: Readonly<Record<string, ModelPrice>> };

/** The price's terms in `currency`, or null when it has no amount in it (the service's 422). */
export function priceIn(price: ModelMultiPrice, currency: string): ModelPrice | null {
  return Object.hasOwn(price.in, currency) ? price.in[currency]! : null;
}

/**
 * What `quantity` units of a price cost (RULES-42 2, Stripe's tiers): per unit, unit × quantity;
 * graduated, each tier prices the units within it plus its flat fee when any unit falls in it;
 * volume, the tier the whole quantity reaches prices every unit, plus its flat fee.
 */
export function costOf(price: ModelPrice, quantity: number): number {
  if (price.scheme === "per_unit") return price.unit * quantity;
  if (price.scheme === "volume") {
    for (const tier of price.tiers) {
      if (tier.upTo === null || quantity <= tier.upTo) return quantity * tier.unit + tier.flat;
    }
    throw new Error("volume tiers without an unbounded last tier");
  }
  let cost = 0;
  let from = 0;
  for (const tier of price.tiers) {
    const to = tier.upTo === null ? quantity : Math.min(quantity, tier.upTo);
    if (to > from) cost += (to - from) * tier.unit + tier.flat;
    from = Math.max(from, to);
    if (from >= quantity) break;
  }
  return cost;
}

// ---- discounts --------------------------------------------------------------------------------

/** An amount-off coupon has its amount in its own `currency` and, in `options`, in others (atoms of each). */
export type ModelCoupon = { duration: "once" | "repeating" | "forever"; months: number | null } & (
  | { percentBps: number }
  | { amountOff: number; currency: string; options: Readonly<Record<string, number>> }
);

/** Whether the coupon discounts an invoice in `currency`: a percentage always; an amount only in a currency it has one in (else it is not used up either). */
export function couponAppliesIn(coupon: ModelCoupon, currency: string): boolean {
  if ("percentBps" in coupon) return true;
  return coupon.currency === currency || Object.hasOwn(coupon.options, currency);
}

/** A percentage rounds down (the merchant never gives more); a fixed amount, in the invoice's currency, stops at the subtotal. */
export function discountOf(coupon: ModelCoupon, subtotal: number, currency: string): number {
  if ("percentBps" in coupon) return Number((BigInt(subtotal) * BigInt(coupon.percentBps)) / BPS_WHOLE);
  const amount = coupon.currency === currency ? coupon.amountOff : coupon.options[currency];
  if (amount === undefined) throw new Error(`the coupon has no amount in ${currency}: the caller checks couponAppliesIn`);
  return Math.min(subtotal, amount);
}

/** Calendar months in UTC, the day clamped to the month's last (31 Jan + 1 month = 28/29 Feb). */
export function plusMonths(date: Date, months: number): Date {
  const index = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12;
  const days = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const copy = new Date(date.getTime());
  copy.setUTCFullYear(year, month, Math.min(date.getUTCDate(), days));
  return copy;
}

/** Shares of `discount` among `amounts` in proportion, the remainders to the largest fractions first (ties: the earlier line). */
export function shares(amounts: readonly number[], discount: number): number[] {
  const total = amounts.reduce((sum, amount) => sum + amount, 0);
  if (total === 0 || discount === 0) return amounts.map(() => 0);
  const parts = amounts.map((amount, index) => {
    const product = BigInt(amount) * BigInt(discount);
    return { index, whole: Number(product / BigInt(total)), fraction: product % BigInt(total) };
  });
  let left = discount - parts.reduce((sum, part) => sum + part.whole, 0);
  const byFraction = [...parts].sort((a, b) => (a.fraction === b.fraction ? a.index - b.index : a.fraction > b.fraction ? -1 : 1));
  const result = parts.map((part) => part.whole);
  for (const part of byFraction) {
    if (left <= 0) break;
    result[part.index]! += 1;
    left -= 1;
  }
  return result;
}

// ---- taxes ------------------------------------------------------------------------------------

export type ModelRate = { id: string; percentE4: number; inclusive: boolean };
export type ModelLineTax = { rate: string; amount: number; inclusive: boolean };

/**
 * One line's taxes on its taxable amount (amount less its discount share): inclusive rates are
 * contained in it, taxable × p / (1 + Σ inclusive p); exclusive rates are added to what is left,
 * (taxable − inclusive taxes) × p; each rounded half to even on its own.
 */
export function lineTaxes(taxable: number, rates: readonly ModelRate[]): ModelLineTax[] {
  const inclusiveSum = rates.filter((rate) => rate.inclusive).reduce((sum, rate) => sum + BigInt(rate.percentE4), 0n);
  const contained = new Map<string, number>();
  for (const rate of rates.filter((r) => r.inclusive)) contained.set(rate.id, Number(halfEven(BigInt(taxable) * BigInt(rate.percentE4), PERCENT_E4_WHOLE + inclusiveSum)));
  const net = BigInt(taxable - [...contained.values()].reduce((sum, amount) => sum + amount, 0));
  return rates.map((rate) => ({
    rate: rate.id,
    inclusive: rate.inclusive,
    amount: rate.inclusive ? contained.get(rate.id)! : Number(halfEven(net * BigInt(rate.percentE4), PERCENT_E4_WHOLE)),
  }));
}

export type ModelLine = { id: string | null; quantity: number; amount: number; rates: readonly ModelRate[]; discount: number; taxes: ModelLineTax[] };
export type InvoiceAmounts = { subtotal: number; discount: number; tax: number; exclusiveTax: number; total: number; lines: ModelLine[] };

/**
 * An invoice's amounts at finalization, all in atoms of its one `currency`: discount on the
 * subtotal, shared; taxes per line and rate; total = subtotal − discount + exclusive taxes.
 */
export function invoiceAmounts(lines: readonly { id: string | null; quantity: number; amount: number; rates: readonly ModelRate[] }[], coupon: ModelCoupon | null, currency: string): InvoiceAmounts {
  const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
  const discount = coupon ? discountOf(coupon, subtotal, currency) : 0;
  const lineShares = shares(
    lines.map((line) => line.amount),
    discount,
  );
  const taxed = lines.map((line, index) => ({ ...line, discount: lineShares[index]!, taxes: lineTaxes(line.amount - lineShares[index]!, line.rates) }));
  const all = taxed.flatMap((line) => line.taxes);
  const tax = all.reduce((sum, t) => sum + t.amount, 0);
  const exclusiveTax = all.filter((t) => !t.inclusive).reduce((sum, t) => sum + t.amount, 0);
  return { subtotal, discount, tax, exclusiveTax, total: subtotal - discount + exclusiveTax, lines: taxed };
}

// ---- the balance --------------------------------------------------------------------------------

/** Finalization meets the balance: a credit lowers the due amount at most to 0 (the rest stays); a debit is added whole. */
export function applyBalance(balance: number, total: number): { applied: number; due: number } {
  const applied = balance > 0 ? Math.min(balance, total) : balance;
  return { applied, due: total - applied };
}

// ---- credit notes -------------------------------------------------------------------------------

/** What issued credit notes have credited of one invoice line so far: its amount, the units named by quantity, discount and each rate's tax. */
export type LineCredited = { amount: number; quantity: number; discount: number; taxes: Map<string, number> };

/**
 * A part of a line credited on top of what is credited already (RULES-42 5): the discount share
 * and each tax are cumulative, f(credited so far + this) − f(credited so far), f(x) = value × x /
 * amount half to even, so the whole line credits exactly its discount and taxes and the last unit
 * is always creditable. Its total is part − discount + exclusive taxes.
 */
export function creditLinePart(line: ModelLine, credited: LineCredited, part: number): { discount: number; taxes: ModelLineTax[]; total: number } {
  if (line.amount === 0) return { discount: 0, taxes: line.taxes.map((t) => ({ ...t, amount: 0 })), total: 0 };
  const at = (value: number, x: number) => Number(halfEven(BigInt(value) * BigInt(x), BigInt(line.amount)));
  const before = credited.amount;
  const after = before + part;
  const discount = at(line.discount, after) - at(line.discount, before);
  const taxes = line.taxes.map((t) => ({ ...t, amount: at(t.amount, after) - at(t.amount, before) }));
  const exclusive = taxes.filter((t) => !t.inclusive).reduce((sum, t) => sum + t.amount, 0);
  return { discount, taxes, total: part - discount + exclusive };
}

/**
 * A line's units credited as a part of its amount, on top of the units credited already (RULES-42
 * 5): f(units so far + these) − f(units so far), f(x) = amount × x / line quantity half to even, so
 * a line whose amount does not divide by its quantity is credited exactly by its last unit.
 */
export function unitsPart(line: ModelLine, creditedUnits: number, quantity: number): number {
  const at = (units: number) => Number(halfEven(BigInt(line.amount) * BigInt(units), BigInt(line.quantity)));
  return at(creditedUnits + quantity) - at(creditedUnits);
}

// ---- proration ----------------------------------------------------------------------------------

/** floor(|after − before| × remaining / length) with the change's sign; remaining clamped to the period. */
export function proration(before: number, after: number, periodStart: Date, periodEnd: Date, at: Date): number {
  const length = periodEnd.getTime() - periodStart.getTime();
  if (length <= 0) return 0;
  const remaining = Math.min(Math.max(0, periodEnd.getTime() - at.getTime()), length);
  const magnitude = (BigInt(Math.abs(after - before)) * BigInt(remaining)) / BigInt(length);
  return after >= before ? Number(magnitude) : -Number(magnitude);
}
