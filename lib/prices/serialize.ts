import type { prices } from "@/db/schema";
import type { PriceObject } from "./schema";

export type PriceRow = typeof prices.$inferSelect;

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
    tiers: row.tiers?.map((t) => ({ up_to: t.up_to, unit_amount_atom: t.unit_amount_atom, flat_amount_atom: t.flat_amount_atom ?? 0 })) ?? null,
    nickname: row.nickname,
    active: row.active,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
