import type { products } from "@/db/schema";
import type { ProductObject } from "./schema";

export type ProductRow = typeof products.$inferSelect;

/** The product as the API shows it, and as event data records it. */
export function serializeProduct(row: ProductRow, livemode: boolean): ProductObject {
  return {
    id: row.id,
    object: "product",
    name: row.name,
    description: row.description,
    active: row.active,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
