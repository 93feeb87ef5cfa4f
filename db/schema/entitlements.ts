import { index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { products } from "./catalog";
import { createdAt, id, updatedAt } from "./columns";
import { customers } from "./customers";

/** A capability a merchant's app checks (`lookup_key`), granted by the products it is attached to. */
export const features = pgTable(
  "features",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    lookupKey: text("lookup_key").notNull(),
    name: text("name").notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [uniqueIndex("features_account_lookup_key_idx").on(t.accountId, t.lookupKey), index("features_account_idx").on(t.accountId, t.created, t.id)],
);

/** A feature attached to a product: a subscription to one of the product's prices grants it. */
export const productFeatures = pgTable(
  "product_features",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    productId: text("product_id")
      .notNull()
      .references(() => products.id),
    featureId: text("feature_id")
      .notNull()
      .references(() => features.id),
    created: createdAt(),
  },
  (t) => [uniqueIndex("product_features_product_feature_idx").on(t.productId, t.featureId), index("product_features_feature_idx").on(t.featureId)],
);

/** One entitlement as last announced, with the `customer.entitlements.updated` event that granted it. */
export type EntitlementSnapshotItem = { feature: string; lookup_key: string; source_subscription: string; granted_by_event: string };

/**
 * The entitlements last announced per customer: what `customer.entitlements.updated` diffs against
 * (the API computes them live). Absent: none announced yet.
 */
export const customerEntitlements = pgTable("customer_entitlements", {
  customerId: text("customer_id")
    .primaryKey()
    .references(() => customers.id),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id),
  items: jsonb("items").$type<EntitlementSnapshotItem[]>().notNull().default([]),
  updated: updatedAt(),
});
