import type { prices } from "@/db/schema";
import type { PriceObject } from "./schema";

export type PriceRow = typeof prices.$inferSelect;

const tiersOf = (tiers: readonly { up_to: number | null; unit_amount_atom: number; flat_amount_atom?: number }[] | null | undefined) =>
  tiers?.map((t) => ({ up_to: t.up_to, unit_amount_atom: t.unit_amount_atom, flat_amount_atom: t.flat_amount_atom ?? 0 })) ?? null;

/** Every currency the price bills in, its own first (as Stripe's expanded `currency_options` shows it). */
function currencyOptionsOf(row: PriceRow): PriceObject["currency_options"] {
  const own = { unit_amount_atom: row.unitAmountAtom, tiers: tiersOf(row.tiers), tax_behavior: "unspecified" as const };
  const options = Object.keys(row.currencyOptions ?? {})
    .sort()
    .map((code) => {
      const option = row.currencyOptions[code]!;
      return [code, { unit_amount_atom: option.unit_amount_atom ?? 0, tiers: tiersOf(option.tiers), tax_behavior: option.tax_behavior }] as const;
    });
  return Object.fromEntries([[row.currency, own], ...options]);
}

/** The price as the API shows it, and as event data records it. */
export function serializePrice(row: PriceRow, livemode: boolean): PriceObject {
  return {
    id: row.id,
    object: "price",
    product: row.productId,
    currency: row.currency,
    unit_amount_atom: row.unitAmountAtom,
    type: row.type,
    recurring:
      row.type === "recurring"
        ? // Set together with type = recurring on creation, and immutable after.
          {
            interval: row.recurringInterval!,
            interval_count: row.recurringIntervalCount!,
            usage_type: row.usageType,
            meter: row.meterId,
          }
        : null,
    billing_scheme: row.billingScheme,
    tiers_mode: row.tiersMode,
    tiers: tiersOf(row.tiers),
    currency_options: currencyOptionsOf(row),
    nickname: row.nickname,
    active: row.active,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
