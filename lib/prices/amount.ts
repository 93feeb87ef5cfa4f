import { tierBreakdown, tieredAmount, type Tier, type TierPart, type TiersMode } from "./tiers";

/*
 * What a price costs: the one function every path asks (invoice lines, usage billing, checkout,
 * change requests and proration, renewals of archived prices, the portal, the previews and the
 * dashboard). Pure (no server imports): client components read it too. A lint rule
 * (eslint.config.mjs, "One function prices a price") refuses `unitAmountAtom ×` anywhere else.
 */

/** What a price's amount depends on, as its row holds it (immutable once the price exists). */
export type PriceTerms = {
  billingScheme: "per_unit" | "tiered";
  unitAmountAtom: number;
  tiersMode: TiersMode | null;
  tiers: readonly Tier[] | null;
};

/** A price in its currencies: its own (`currency`, with its terms) and its currency options (lowercase code → amounts). */
export type PriceInCurrencies = PriceTerms & {
  currency: string;
  currencyOptions: Readonly<Record<string, { unit_amount_atom?: number; tiers?: readonly Tier[] }>> | null;
};

/**
 * The price's terms in `currency`: its own when `currency` is the price's, else its currency
 * option's amounts (the scheme and tiers mode are the price's: only amounts differ by currency);
 * null when the price has no amount in `currency`. Every path bills a price in a currency through
 * this, then `amountOf`: the amount rule stays one function whatever the currency.
 */
export function termsIn(price: PriceInCurrencies, currency: string): PriceTerms | null {
  const code = currency.toLowerCase();
  const own: PriceTerms = { billingScheme: price.billingScheme, unitAmountAtom: price.unitAmountAtom, tiersMode: price.tiersMode, tiers: price.tiers };
  if (price.currency === code) return own;
  const option = price.currencyOptions?.[code];
  if (!option) return null;
  return price.billingScheme === "tiered"
    ? { ...own, unitAmountAtom: 0, tiers: option.tiers ?? null }
    : { ...own, unitAmountAtom: option.unit_amount_atom ?? 0, tiers: null };
}

/** The currencies the price bills in: its own first, then its options' in code order. */
export function currenciesOf(price: Pick<PriceInCurrencies, "currency" | "currencyOptions">): string[] {
  return [price.currency, ...Object.keys(price.currencyOptions ?? {}).sort()];
}

/** An amount per unit that is no price of the catalogue (a custom invoice line): priced like a per-unit price. */
export const perUnit = (unitAmountAtom: number): PriceTerms => ({ billingScheme: "per_unit", unitAmountAtom, tiersMode: null, tiers: null });

/** The price as the API shows it (`unit_amount_atom`, `billing_scheme`, `tiers_mode`, `tiers`), as terms. */
export function termsOf(price: {
  unit_amount_atom: number;
  billing_scheme: "per_unit" | "tiered";
  tiers_mode: TiersMode | null;
  tiers: readonly Tier[] | null;
}): PriceTerms {
  return { billingScheme: price.billing_scheme, unitAmountAtom: price.unit_amount_atom, tiersMode: price.tiers_mode, tiers: price.tiers };
}

/**
 * The amount, in atoms, of `quantity` units of `price`: quantity × unit amount for `per_unit`,
 * the tiers' amount for `tiered` (graduated or volume, flat fees included; lib/prices/tiers.ts).
 * Licensed prices are priced by their quantity, metered ones by their usage. `bigint`: a caller
 * that stores or answers the amount refuses one above 2^53 − 1 (`safeAtoms`).
 */
export function amountOf(price: PriceTerms, quantity: number): bigint {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`quantity must be a non-negative integer, not ${quantity}`);
  if (price.billingScheme === "tiered") return tieredAmount(price.tiers ?? [], price.tiersMode ?? "graduated", quantity);
  return BigInt(price.unitAmountAtom) * BigInt(quantity);
}

/** The tier parts of a tiered price's amount (what a document prints per tier); null for a per-unit price. */
export function tierPartsOf(price: PriceTerms, quantity: number): TierPart[] | null {
  return price.billingScheme === "tiered" ? tierBreakdown(price.tiers ?? [], price.tiersMode ?? "graduated", quantity) : null;
}

/** The amount as a number of atoms, or null when it exceeds 2^53 − 1 (the caller names the field it refuses). */
export function safeAtoms(amount: bigint): number | null {
  return amount > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(amount);
}

/**
 * What the first unit of a price costs, for a label that reads "from …": a per-unit price's unit
 * amount; a tiered price's first tier (its unit amount and flat fee). Never a price's amount for a
 * quantity: that is `amountOf`.
 */
export function startingAt(price: PriceTerms): { unitAmountAtom: number; flatAmountAtom: number } {
  if (price.billingScheme !== "tiered") return { unitAmountAtom: price.unitAmountAtom, flatAmountAtom: 0 };
  const first = price.tiers?.[0];
  return { unitAmountAtom: first?.unit_amount_atom ?? 0, flatAmountAtom: first?.flat_amount_atom ?? 0 };
}
