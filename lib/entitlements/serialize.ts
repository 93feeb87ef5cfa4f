import type { features, productFeatures } from "@/db/schema";
import type { z } from "zod";
import type { Feature, ProductFeature } from "./schema";

export type FeatureRow = typeof features.$inferSelect;
export type ProductFeatureRow = typeof productFeatures.$inferSelect;

export function serializeFeature(row: FeatureRow, livemode: boolean): z.input<typeof Feature> {
  return {
    id: row.id,
    object: "feature",
    lookup_key: row.lookupKey,
    name: row.name,
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

export function serializeProductFeature(row: ProductFeatureRow, feature: FeatureRow, livemode: boolean): z.input<typeof ProductFeature> {
  return {
    id: row.id,
    object: "product_feature",
    product: row.productId,
    feature: serializeFeature(feature, livemode),
    livemode,
    created: row.created.toISOString(),
  };
}
