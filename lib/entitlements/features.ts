import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { pageOf } from "@/db/page";
import { features, prices, productFeatures, products, subscriptionItems, subscriptions } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { syncEntitlements } from "./core";
import { GRANTING_STATUSES } from "./rules";
import type { FeatureCreateInput } from "./schema";
import { serializeFeature, serializeProductFeature, type FeatureRow, type ProductFeatureRow } from "./serialize";

export async function createFeature({ ctx, input }: Verb<z.output<typeof FeatureCreateInput>>): Promise<FeatureRow> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const [row] = await tx
      .insert(features)
      .values({ id: newId("feature"), accountId: ctx.accountId, lookupKey: input.lookup_key, name: input.name, metadata: input.metadata ?? {}, created: now, updated: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw validationFailed([{ field: "lookup_key", message: `A feature with lookup_key '${input.lookup_key}' already exists.` }]);
    await emitEvent(tx, ctx, { type: "feature.created", aggregateId: row.id, data: serializeFeature(row, ctx.livemode), previousData: null });
    return row;
  });
}

async function featureOf(executor: Executor, accountId: string, id: string): Promise<FeatureRow | undefined> {
  const [row] = await executor.select().from(features).where(and(eq(features.accountId, accountId), eq(features.id, id)));
  return row;
}

export async function getFeature({ ctx, input }: Verb<{ id: string }>): Promise<FeatureRow> {
  const row = await featureOf(await getDb(), ctx.accountId, input.id);
  if (!row) throw notFound("feature", input.id);
  return row;
}

export async function listFeatures({ ctx, input }: Verb<Page>): Promise<{ rows: FeatureRow[] } & PageInfo> {
  // An account has few features: counted exactly, no kept totals.
  return pageOf(features, eq(features.accountId, ctx.accountId), input);
}

async function productOf(executor: Executor, accountId: string, id: string) {
  const [row] = await executor
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.accountId, accountId), eq(products.id, id), isNull(products.deletedAt)));
  if (!row) throw notFound("product", id);
  return row;
}

export type AttachedFeature = { row: ProductFeatureRow; feature: FeatureRow };

export async function listProductFeatures({ ctx, input }: Verb<{ product: string }>): Promise<AttachedFeature[]> {
  const db = await getDb();
  await productOf(db, ctx.accountId, input.product);
  const rows = await db
    .select({ row: productFeatures, feature: features })
    .from(productFeatures)
    .innerJoin(features, eq(features.id, productFeatures.featureId))
    .where(eq(productFeatures.productId, input.product))
    .orderBy(asc(features.lookupKey));
  return rows;
}

/** Customers holding a granting subscription to the product: their entitlements may change with its features. */
async function resyncProductCustomers(tx: ChangeTransaction, ctx: ServiceContext, productId: string): Promise<void> {
  const holders = await tx
    .selectDistinct({ customer: subscriptions.customerId })
    .from(subscriptions)
    .innerJoin(subscriptionItems, and(eq(subscriptionItems.subscriptionId, subscriptions.id), isNull(subscriptionItems.deletedAt)))
    .innerJoin(prices, eq(prices.id, subscriptionItems.priceId))
    .where(and(eq(subscriptions.accountId, ctx.accountId), eq(prices.productId, productId), inArray(subscriptions.status, [...GRANTING_STATUSES])))
    .orderBy(asc(subscriptions.customerId));
  for (const holder of holders) await syncEntitlements(tx, ctx, holder.customer);
}

/**
 * Attaches a feature to a product (idempotent: attaching it again answers the existing link, no
 * event). Emits `product_feature.attached` and, in the same transaction, the
 * `customer.entitlements.updated` of every customer it grants the feature to.
 */
export async function attachProductFeature({ ctx, input }: Verb<{ product: string; feature: string }>): Promise<AttachedFeature> {
  return withChangeTransaction(async (tx) => {
    await tx.select({ id: products.id }).from(products).where(eq(products.id, input.product)).for("update");
    await productOf(tx, ctx.accountId, input.product);
    const feature = await featureOf(tx, ctx.accountId, input.feature);
    if (!feature) throw validationFailed([{ field: "feature", message: `No such feature: '${input.feature}'.` }]);
    const [existing] = await tx
      .select()
      .from(productFeatures)
      .where(and(eq(productFeatures.productId, input.product), eq(productFeatures.featureId, feature.id)));
    if (existing) return { row: existing, feature };
    const row = one(
      await tx
        .insert(productFeatures)
        .values({ id: newId("productFeature"), accountId: ctx.accountId, productId: input.product, featureId: feature.id, created: ctx.now() })
        .returning(),
    );
    await emitEvent(tx, ctx, {
      type: "product_feature.attached",
      aggregateId: row.id,
      data: serializeProductFeature(row, feature, ctx.livemode),
      previousData: null,
    });
    await resyncProductCustomers(tx, ctx, input.product);
    return { row, feature };
  });
}

/** Detaches it: `product_feature.detached` and the entitlements it took away, in one transaction. */
export async function detachProductFeature({ ctx, input }: Verb<{ product: string; feature: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    await tx.select({ id: products.id }).from(products).where(eq(products.id, input.product)).for("update");
    await productOf(tx, ctx.accountId, input.product);
    const [found] = await tx
      .select({ row: productFeatures, feature: features })
      .from(productFeatures)
      .innerJoin(features, eq(features.id, productFeatures.featureId))
      .where(and(eq(productFeatures.productId, input.product), eq(productFeatures.featureId, input.feature)));
    if (!found) throw new ServiceError("not_found", `Feature '${input.feature}' is not attached to product '${input.product}'.`);
    await tx.delete(productFeatures).where(eq(productFeatures.id, found.row.id));
    const state = serializeProductFeature(found.row, found.feature, ctx.livemode);
    await emitEvent(tx, ctx, { type: "product_feature.detached", aggregateId: found.row.id, data: state, previousData: null });
    await resyncProductCustomers(tx, ctx, input.product);
    return { id: found.row.id };
  });
}
