import { formatMoney } from "@/components/invoices/format";

/** A billing object as the API returns it (JSON). */
export type ApiObject = Record<string, unknown> & { id: string };

export const str = (object: ApiObject, key: string) => (typeof object[key] === "string" ? (object[key] as string) : undefined);
export const num = (object: ApiObject, key: string) => (typeof object[key] === "number" ? (object[key] as number) : undefined);

export function money(object: ApiObject, key: string): string {
  const atoms = num(object, key);
  return atoms === undefined ? "—" : formatMoney(atoms, str(object, "currency") ?? "usd");
}

/** "€15.00 / month": a price's amount with its currency and interval. */
export function priceLabel(price: ApiObject): string {
  const amount = money(price, "unit_amount_atom");
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
