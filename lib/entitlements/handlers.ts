import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { attachProductFeature, createFeature, detachProductFeature, getFeature, listFeatures, listProductFeatures } from "./features";
import {
  attachProductFeatureOperation,
  createFeatureOperation,
  detachProductFeatureOperation,
  getCustomerEntitlementsOperation,
  getFeatureOperation,
  listFeaturesOperation,
  listProductFeaturesOperation,
} from "./operations";
import { serializeFeature, serializeProductFeature } from "./serialize";
import { getCustomerEntitlements } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const entitlementHandlers = [
  handle(createFeatureOperation, async ({ ctx, body }) => serializeFeature(await createFeature({ ctx, input: body }), ctx.livemode)),
  handle(listFeaturesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listFeatures({ ctx, input: query });
    return envelope(rows.map((row) => serializeFeature(row, ctx.livemode)), info);
  }),
  handle(getFeatureOperation, async ({ ctx, params }) => serializeFeature(await getFeature({ ctx, input: { id: params.feature_id } }), ctx.livemode)),
  handle(attachProductFeatureOperation, async ({ ctx, params, body }) => {
    const { row, feature } = await attachProductFeature({ ctx, input: { product: params.product_id, feature: body.feature } });
    return serializeProductFeature(row, feature, ctx.livemode);
  }),
  handle(listProductFeaturesOperation, async ({ ctx, params }) => {
    const rows = await listProductFeatures({ ctx, input: { product: params.product_id } });
    const items = rows.map(({ row, feature }) => serializeProductFeature(row, feature, ctx.livemode));
    return envelope(items, { total: items.length, hasMore: false });
  }),
  handle(detachProductFeatureOperation, async ({ ctx, params }) => {
    const { id } = await detachProductFeature({ ctx, input: { product: params.product_id, feature: params.feature_id } });
    return { id, object: "product_feature" as const, deleted: true as const };
  }),
  handle(getCustomerEntitlementsOperation, async ({ ctx, params }) => getCustomerEntitlements({ ctx, input: { customer: params.customer_id } })),
];
