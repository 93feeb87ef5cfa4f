import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata } from "@/lib/schemas";

const LookupKey = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[a-z0-9][a-z0-9_.:-]*$/, "Lowercase letters, digits, and _ . : - (starting with a letter or digit).")
  .meta({ description: "What the merchant's app checks; unique in the account.", example: "advanced_reports" });

export const FeatureCreateInput = z
  .strictObject({
    lookup_key: LookupKey,
    name: z.string().min(1).max(256).meta({ example: "Advanced reports" }),
    metadata: Metadata.optional(),
  })
  .meta({ id: "FeatureCreateInput" });

export const Feature = z
  .object({
    id: z.string().meta({ example: "feat_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("feature"),
    lookup_key: z.string(),
    name: z.string(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Feature" });

export const FeatureList = listEnvelopeSchema(Feature, "FeatureList");
export const FeatureListQuery = PaginationQuery;

export const ProductFeatureAttachInput = z
  .strictObject({ feature: z.string().min(1).meta({ description: "The feature's id (`feat_…`).", example: "feat_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }) })
  .meta({ id: "ProductFeatureAttachInput" });

export const ProductFeature = z
  .object({
    id: z.string().meta({ example: "prodft_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("product_feature"),
    product: z.string(),
    feature: Feature,
    livemode: z.boolean(),
    created: DateTime,
  })
  .meta({ id: "ProductFeature" });

export const ProductFeatureList = listEnvelopeSchema(ProductFeature, "ProductFeatureList");

export const DeletedProductFeature = z
  .object({ id: z.string(), object: z.literal("product_feature"), deleted: z.literal(true) })
  .meta({ id: "DeletedProductFeature" });

export const Entitlement = z
  .object({
    feature: z.string().meta({ description: "The feature's id.", example: "feat_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    lookup_key: z.string().meta({ example: "advanced_reports" }),
    source_subscription: z.string().meta({
      description: "The subscription that grants it (the oldest, when several do).",
      example: "sub_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5",
    }),
  })
  .meta({ id: "Entitlement" });

export const CustomerEntitlements = z
  .object({
    object: z.literal("customer_entitlements"),
    customer: z.string(),
    items: z.array(Entitlement).meta({ description: "Each active feature once, by `lookup_key`." }),
    livemode: z.boolean(),
  })
  .meta({ id: "CustomerEntitlements" });

export type EntitlementItem = z.output<typeof Entitlement>;

/** The API's answer: each entitlement with the `customer.entitlements.updated` event that granted it. */
export const CustomerEntitlementsWithGrants = CustomerEntitlements.extend({
  items: z.array(
    Entitlement.extend({
      granted_by_event: z.string().nullable().meta({
        description: "The `customer.entitlements.updated` event that granted it (null until the change is announced).",
        example: "evt_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5",
      }),
    }).meta({ id: "GrantedEntitlement" }),
  ),
}).meta({ id: "CustomerEntitlementsWithGrants" });
