import type { taxRates } from "@/db/schema";
import { e4ToPercent, type TaxRateObject } from "./schema";

export type TaxRateRow = typeof taxRates.$inferSelect;

export function serializeTaxRate(row: TaxRateRow, livemode: boolean): TaxRateObject {
  return {
    id: row.id,
    object: "tax_rate",
    display_name: row.displayName,
    description: row.description,
    percentage: e4ToPercent(row.percentageE4),
    inclusive: row.inclusive,
    country: row.country,
    jurisdiction: row.jurisdiction,
    active: row.active,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}
