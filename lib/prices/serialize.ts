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
          { interval: row.recurringInterval!, interval_count: row.recurringIntervalCount! }
        : null,
    nickname: row.nickname,
    active: row.active,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
