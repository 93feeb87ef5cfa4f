import { isoExponent } from "./currencies";
import { numberFormat } from "./intl";

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

/**
 * The currency's exponent: how many decimal places its amounts have (USD 2, JPY 0, KWD 3, HUF 2),
 * from the ISO 4217 table the project owns (lib/currencies.ts), not the runtime's ICU, whose
 * digits differ for some codes and which accepts any three letters. An unknown code: null.
 */
export function currencyExponent(currency: string): number | null {
  return isoExponent(currency);
}

/** The locale's decimal and group separators ("," and "." in `de`). */
export function separatorsOf(locale: string): { decimal: string; group: string } {
  const parts = numberFormat(locale, { useGrouping: true }).formatToParts(12345.6);
  return {
    decimal: parts.find((part) => part.type === "decimal")?.value ?? ".",
    group: parts.find((part) => part.type === "group")?.value ?? ",",
  };
}

export type ParsedAmount = { ok: true; atoms: number } | { ok: false; message: string };

// Spaces of every kind group digits ("1 234,56"; fr groups with U+202F).
const SPACES = /[\s\u00a0\u202f\u2009]/g;

/**
 * An amount as a person types it, in `locale`, to integer atoms of `currency`, without floats:
 * "15", "15.00" and, in `de`, "15,00" and "1.234,56". Rules: with both "." and "," the last one
 * is the decimal point; with one of them, the locale's decimal separator is one, and so is the
 * locale's group separator when it does not group by threes ("15.00" in `de`, "15,00" in `en`);
 * a minus sign only where `allowNegative`; more decimals than the currency has are refused, never
 * rounded.
 */
export function parseAmount(text: string, currency: string, locale: string, options: { allowNegative?: boolean } = {}): ParsedAmount {
  const exponent = currencyExponent(currency);
  if (exponent === null) return { ok: false, message: `"${currency}" is not a currency code.` };
  let typed = text.replace(SPACES, "");
  if (typed === "") return { ok: false, message: "Enter an amount." };
  const negative = /^[-\u2212]/.test(typed);
  if (negative) {
    if (!options.allowNegative) return { ok: false, message: "Must not be negative." };
    typed = typed.slice(1);
  }
  if (!/^[\d.,]+$/.test(typed) || !/\d/.test(typed)) return { ok: false, message: `"${text.trim()}" is not an amount: use digits, e.g. ${example(exponent, locale)}.` };

  const { decimal, group } = separatorsOf(locale);
  const lastDot = typed.lastIndexOf(".");
  const lastComma = typed.lastIndexOf(",");
  let point: string | null = null;
  let groupMark = "";
  if (lastDot >= 0 && lastComma >= 0) [point, groupMark] = lastDot > lastComma ? [".", ","] : [",", "."];
  else if (lastDot >= 0 || lastComma >= 0) {
    const mark = lastDot >= 0 ? "." : ",";
    const groupsByThrees = new RegExp(`^\\d{1,3}(\\${mark}\\d{3})+$`).test(typed);
    if (mark === decimal || !(mark === group && groupsByThrees)) point = mark;
    else groupMark = mark;
  }
  const [whole = "", fraction = "", ...rest] = point ? typed.split(point) : [typed];
  const grouped = groupMark !== "" && new RegExp(`^\\d{1,3}(\\${groupMark}\\d{3})+$`).test(whole);
  const wholeOk = /^\d+$/.test(whole) || grouped || (whole === "" && fraction !== "");
  if (rest.length > 0 || !wholeOk || !/^\d*$/.test(fraction)) {
    return { ok: false, message: `"${text.trim()}" is not an amount, e.g. ${example(exponent, locale)}.` };
  }
  if (fraction.length > exponent) {
    const places = exponent === 0 ? "no decimal places" : `${exponent} decimal place${exponent === 1 ? "" : "s"}`;
    return { ok: false, message: `${currency.trim().toUpperCase()} amounts have ${places}: "${text.trim()}" has ${fraction.length}.` };
  }
  // Digits to atoms by string: whole digits then the fraction padded to the exponent.
  const digits = `${groupMark ? whole.replaceAll(groupMark, "") : whole}${fraction.padEnd(exponent, "0")}`.replace(/^0+(?=\d)/, "");
  const atoms = BigInt(digits);
  if (atoms > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, message: "Too large an amount." };
  return { ok: true, atoms: Number(negative ? -atoms : atoms) };
}

function example(exponent: number, locale: string): string {
  return exponent === 0 ? "1500" : `15${separatorsOf(locale).decimal}${"0".repeat(exponent)}`;
}

/**
 * Atoms as the locale writes the amount ("15,00 €" in `de`), exactly (a decimal string, no float),
 * with the table's number of decimals (ICU would print HUF 1500 atoms as "HUF 15", not 15.00).
 * `locale` undefined: the runtime's. A code the table does not list: the raw atoms and the code.
 */
export function formatAtoms(atoms: number, currency: string, locale: string | undefined): string {
  const exponent = currencyExponent(currency);
  if (exponent === null) return `${atoms} ${currency.trim().toUpperCase()} (atoms)`;
  const digits = Math.abs(atoms).toString().padStart(exponent + 1, "0");
  const decimal = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  // Intl formats a decimal string exactly (ECMA-402 StringNumericLiteral).
  const value = `${atoms < 0 ? "-" : ""}${decimal}` as Intl.StringNumericLiteral;
  return numberFormat(locale, {
    style: "currency",
    currency: currency.trim().toUpperCase(),
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  }).format(value);
}

/** A credit grant as the application rule sees it, in the order it applies (`creditGrantOrder`). */
export type GrantToApply = { id: string; remainingAtom: number; eligible: (lineIndex: number) => boolean };
export type CreditApplication = { grantId: string; lineIndex: number; amountAtom: number };

/**
 * What credit grants pay on an invoice (docs/rules/invoices.md, "Credit grants at finalization"):
 * each grant in order pays its eligible lines in the invoice's order, each line up to what is left
 * of its `payableAtom` (the line's amount after its discount share: credits never pay exclusive
 * taxes, which stay due), each grant up to what is left of it. Greedy and exact: Σ per grant ≤ its
 * remaining, Σ per line ≤ its payable amount.
 */
export function applyCredits(linesPayableAtom: readonly number[], grants: readonly GrantToApply[]): CreditApplication[] {
  const left = linesPayableAtom.map((amount) => {
    assertAtoms("payableAtom", amount);
    return amount;
  });
  const applications: CreditApplication[] = [];
  for (const grant of grants) {
    assertAtoms("remainingAtom", grant.remainingAtom);
    let remaining = grant.remainingAtom;
    for (let index = 0; index < left.length && remaining > 0; index++) {
      if (left[index]! === 0 || !grant.eligible(index)) continue;
      const amountAtom = Math.min(remaining, left[index]!);
      left[index]! -= amountAtom;
      remaining -= amountAtom;
      applications.push({ grantId: grant.id, lineIndex: index, amountAtom });
    }
  }
  return applications;
}

/**
 * The order grants apply in: priority ascending, then the earliest expiry (a grant that never
 * expires last), then the oldest (created, then id).
 */
export function creditGrantOrder(
  a: { priority: number; expiresAt: Date | null; created: Date; id: string },
  b: { priority: number; expiresAt: Date | null; created: Date; id: string },
): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const expiryA = a.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  const expiryB = b.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  if (expiryA !== expiryB) return expiryA < expiryB ? -1 : 1;
  if (a.created.getTime() !== b.created.getTime()) return a.created.getTime() - b.created.getTime();
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
