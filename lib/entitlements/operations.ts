import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import {
  CustomerEntitlementsWithGrants,
  DeletedProductFeature,
  Feature,
  FeatureCreateInput,
  FeatureList,
  FeatureListQuery,
  ProductFeature,
  ProductFeatureAttachInput,
  ProductFeatureList,
} from "./schema";

const tag = "Entitlements";

export const createFeatureOperation = defineOperation({
  operationId: "createFeature",
  method: "POST",
  path: "/{account_id}/features",
  unscopedPath: "/features",
  summary: "Create a feature",
  description: "Emits `feature.created`. `lookup_key` is unique in the account (a second one is a 422).",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: FeatureCreateInput,
  response: { status: 201, description: "The created feature.", schema: Feature },
  errors: [415, 422],
});

export const listFeaturesOperation = defineOperation({
  operationId: "listFeatures",
  method: "GET",
  path: "/{account_id}/features",
  unscopedPath: "/features",
  summary: "List features",
  description: "The account's features, newest first.",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  query: FeatureListQuery,
  response: { status: 200, description: "A page of features.", schema: FeatureList },
});

export const getFeatureOperation = defineOperation({
  operationId: "getFeature",
  method: "GET",
  path: "/{account_id}/features/{feature_id}",
  unscopedPath: "/features/{feature_id}",
  summary: "Retrieve a feature",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The feature.", schema: Feature },
  errors: [404],
});

export const attachProductFeatureOperation = defineOperation({
  operationId: "attachProductFeature",
  method: "POST",
  path: "/{account_id}/products/{product_id}/features",
  unscopedPath: "/products/{product_id}/features",
  summary: "Attach a feature to a product",
  description:
    "Emits `product_feature.attached` and, in the same transaction, `customer.entitlements.updated` for every customer " +
    "it entitles. Attaching an attached feature answers the existing link (no event).",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: ProductFeatureAttachInput,
  response: { status: 200, description: "The product's link to the feature.", schema: ProductFeature },
  errors: [404, 415, 422],
});

export const listProductFeaturesOperation = defineOperation({
  operationId: "listProductFeatures",
  method: "GET",
  path: "/{account_id}/products/{product_id}/features",
  unscopedPath: "/products/{product_id}/features",
  summary: "List a product's features",
  description: "All of them (a product has few), by `lookup_key`.",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The product's features.", schema: ProductFeatureList },
  errors: [404],
});

export const detachProductFeatureOperation = defineOperation({
  operationId: "detachProductFeature",
  method: "DELETE",
  path: "/{account_id}/products/{product_id}/features/{feature_id}",
  unscopedPath: "/products/{product_id}/features/{feature_id}",
  summary: "Detach a feature from a product",
  description: "Emits `product_feature.detached` and the `customer.entitlements.updated` it causes, in one transaction.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  response: { status: 200, description: "The removed link's id.", schema: DeletedProductFeature },
  errors: [404],
});

export const getCustomerEntitlementsOperation = defineOperation({
  operationId: "getCustomerEntitlements",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}/entitlements",
  unscopedPath: "/customers/{customer_id}/entitlements",
  summary: "A customer's active entitlements",
  description:
    "Each feature the customer may use now: granted by a `trialing`, `active` or `past_due` (within the account's " +
    "`entitlement_past_due_grace_days`, default 7) subscription to a product it is attached to. Publishable tokens may " +
    "call it (for the merchant's front end), for their own account only.",
  tag,
  access: "publishable",
  permission: needs("customers", "read"),
  response: { status: 200, description: "The active entitlements.", schema: CustomerEntitlementsWithGrants },
  errors: [404],
});

export const entitlementOperations = [
  createFeatureOperation,
  listFeaturesOperation,
  getFeatureOperation,
  attachProductFeatureOperation,
  listProductFeaturesOperation,
  detachProductFeatureOperation,
  getCustomerEntitlementsOperation,
];
