import { and, count, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { prices, products } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import type { ProductCreateInput, ProductUpdateInput } from "./schema";
import { serializeProduct, type ProductRow } from "./serialize";

const live = (accountId: string) => and(eq(products.accountId, accountId), isNull(products.deletedAt));

const sameRecord = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(a) === JSON.stringify(b);

/** The product, locked for the rest of the transaction (changes to one product serialize). */
async function lockProduct(tx: ChangeTransaction, accountId: string, id: string): Promise<ProductRow> {
  const [row] = await tx.select().from(products).where(and(live(accountId), eq(products.id, id))).for("update");
  if (!row) throw notFound("product", id);
  return row;
}

export async function createProduct({ ctx, input }: Verb<z.output<typeof ProductCreateInput>>): Promise<ProductRow> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const row = one(await tx
      .insert(products)
      .values({
        id: newId("product"),
        accountId: ctx.accountId,
        name: input.name,
        description: input.description ?? null,
        active: input.active ?? true,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitEvent(tx, ctx, {
      type: "product.created",
      aggregateId: row.id,
      data: serializeProduct(row, ctx.livemode),
      previousData: null,
    });
    return row;
  });
}

export async function getProduct({ ctx, input }: Verb<{ id: string }>): Promise<ProductRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(products)
    .where(and(live(ctx.accountId), eq(products.id, input.id)));
  if (!row) throw notFound("product", input.id);
  return row;
}

export async function listProducts({
  ctx,
  input,
}: Verb<Page & { active?: boolean }>): Promise<{ rows: ProductRow[] } & PageInfo> {
  const list = listQuery("products", ctx.accountId, { active: input.active });
  return pageOf(list.table, list.where, input, list.options);
}

export async function updateProduct({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof ProductUpdateInput> }>): Promise<ProductRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockProduct(tx, ctx.accountId, input.id);
    const { changes } = input;
    const next = {
      name: changes.name ?? before.name,
      description: changes.description === undefined ? before.description : changes.description,
      active: changes.active ?? before.active,
      metadata: patchRecord(before.metadata, changes.metadata),
    };
    const unchanged =
      next.name === before.name &&
      next.description === before.description &&
      next.active === before.active &&
      sameRecord(next.metadata, before.metadata);
    // No state change, no event.
    if (unchanged) return before;

    const after = one(await tx
      .update(products)
      .set({ ...next, updated: ctx.now() })
      .where(eq(products.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "product.updated",
      aggregateId: before.id,
      data: serializeProduct(after, ctx.livemode),
      previousData: serializeProduct(before, ctx.livemode),
    });
    return after;
  });
}

export async function deleteProduct({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    // The row lock also waits for price creations in flight (they lock the product for share).
    const before = await lockProduct(tx, ctx.accountId, input.id);
    const [remaining] = await tx
      .select({ n: count() })
      .from(prices)
      .where(and(eq(prices.productId, before.id), isNull(prices.deletedAt)));
    const priceCount = remaining?.n ?? 0;
    if (priceCount > 0) {
      // As Stripe: a product with prices cannot be deleted, only archived.
      throw new ServiceError(
        "conflict",
        `Product '${before.id}' has ${priceCount} price${priceCount === 1 ? "" : "s"} that ${priceCount === 1 ? "is" : "are"} not deleted; archive the product (active: false) instead, or delete its prices first.`,
      );
    }
    const now = ctx.now();
    const after = one(await tx
      .update(products)
      .set({ deletedAt: now, updated: now })
      .where(eq(products.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "product.deleted",
      aggregateId: before.id,
      data: { ...serializeProduct(after, ctx.livemode), deleted: true },
      previousData: serializeProduct(before, ctx.livemode),
    });
    return { id: before.id };
  });
}

/**
 * The product a new price belongs to, locked for share so that a concurrent delete waits for the
 * price (or the price sees the product deleted). Unknown or another account's: a 422 on `product`.
 */
export async function lockProductForPrice(tx: ChangeTransaction, accountId: string, id: string): Promise<ProductRow> {
  const [row] = await tx.select().from(products).where(and(live(accountId), eq(products.id, id))).for("share");
  if (!row) {
    throw validationFailed([{ field: "product", message: `No such product: '${id}'.` }]);
  }
  return row;
}
