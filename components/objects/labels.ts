import { formatMoney } from "@/components/invoices/format";
import { startingAt, type PriceTerms } from "@/lib/prices/amount";
import type { Tier } from "@/lib/prices/tiers";

/** A billing object as the API returns it (JSON). */
export type ApiObject = Record<string, unknown> & { id: string };

export const str = (object: ApiObject, key: string) => (typeof object[key] === "string" ? (object[key] as string) : undefined);
export const num = (object: ApiObject, key: string) => (typeof object[key] === "number" ? (object[key] as number) : undefined);

export function money(object: ApiObject, key: string): string {
  const atoms = num(object, key);
  return atoms === undefined ? "—" : formatMoney(atoms, str(object, "currency") ?? "usd");
}

/** "$5.00 · €4.50 · ¥700": an amount-off coupon's amount in its own currency, then in each of its currency options. */
export function amountOffLabel(coupon: ApiObject): string {
  const options = (coupon.currency_options ?? {}) as Record<string, { amount_off_atom?: number }>;
  const others = Object.entries(options).flatMap(([currency, option]) => (typeof option.amount_off_atom === "number" ? [formatMoney(option.amount_off_atom, currency)] : []));
  return [money(coupon, "amount_off_atom"), ...others].join(" · ");
}

/** The terms of a price as the API returns it (lib/prices/amount.ts prices them), or null when it is no price. */
export function priceTerms(price: ApiObject): PriceTerms | null {
  const unitAmountAtom = num(price, "unit_amount_atom");
  if (unitAmountAtom === undefined) return null;
  if (price.billing_scheme !== "tiered") return { billingScheme: "per_unit", unitAmountAtom, tiersMode: null, tiers: null };
  const tiersMode = price.tiers_mode === "volume" ? "volume" : "graduated";
  return { billingScheme: "tiered", unitAmountAtom, tiersMode, tiers: Array.isArray(price.tiers) ? (price.tiers as Tier[]) : [] };
}

/**
 * "€15.00 / month": a price's amount with its currency and interval. A tiered price has no single
 * unit amount (its `unit_amount_atom` is 0): "Tiered from €1.00 per unit (+ €5.00) / month", what
 * its first unit costs.
 */
export function priceLabel(price: ApiObject): string {
  const terms = priceTerms(price);
  const currency = str(price, "currency") ?? "usd";
  const first = terms?.billingScheme === "tiered" ? startingAt(terms) : null;
  const amount = first
    ? `Tiered from ${formatMoney(first.unitAmountAtom, currency)} per unit${first.flatAmountAtom > 0 ? ` (+ ${formatMoney(first.flatAmountAtom, currency)})` : ""}`
    : money(price, "unit_amount_atom");
  const recurring = price.recurring as { interval?: string; interval_count?: number } | null | undefined;
  if (!recurring?.interval) return amount;
  return recurring.interval_count && recurring.interval_count > 1
    ? `${amount} every ${recurring.interval_count} ${recurring.interval}s`
    : `${amount} / ${recurring.interval}`;
}

/** "Pro monthly · €15.00 / month": the nickname (when there is one) and the amount. */
export function priceName(price: ApiObject): string {
  const nickname = str(price, "nickname");
  return nickname ? `${nickname} · ${priceLabel(price)}` : priceLabel(price);
}
