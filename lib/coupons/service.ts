import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { coupons } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import { percentToBps, type CouponCreateInput, type CouponUpdateInput } from "./schema";
import { couponState, type CouponRow } from "./serialize";

const live = (accountId: string) => and(eq(coupons.accountId, accountId), isNull(coupons.deletedAt));

/**
 * The coupon, locked for the rest of the transaction: changes and redemptions of one coupon
 * serialize, so `times_redeemed` never passes `max_redemptions`. Deleted coupons are included
 * so callers can say why one is unusable; `null` when the account has no such coupon.
 */
export async function lockCouponRow(tx: ChangeTransaction, accountId: string, id: string): Promise<CouponRow | null> {
  const [row] = await tx
    .select()
    .from(coupons)
    .where(and(eq(coupons.accountId, accountId), eq(coupons.id, id)))
    .for("update");
  return row ?? null;
}

async function lockLiveCoupon(tx: ChangeTransaction, accountId: string, id: string): Promise<CouponRow> {
  const row = await lockCouponRow(tx, accountId, id);
  if (!row || row.deletedAt !== null) throw notFound("coupon", id);
  return row;
}

export async function createCoupon({ ctx, input }: Verb<z.output<typeof CouponCreateInput>>): Promise<CouponRow> {
  // "The future" is the account's: a sandbox's test clock may have moved ahead of the real one.
  if (input.redeem_by !== undefined && Date.parse(input.redeem_by) <= ctx.now().getTime()) {
    throw validationFailed([{ field: "redeem_by", message: "Must be in the future." }]);
  }
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const row = one(await tx
      .insert(coupons)
      .values({
        id: newId("coupon"),
        accountId: ctx.accountId,
        name: input.name ?? null,
        percentOffBps: input.percent_off === undefined ? null : percentToBps(input.percent_off),
        amountOffAtom: input.amount_off_atom ?? null,
        currency: input.amount_off_atom === undefined ? null : (input.currency ?? null),
        currencyOptions: input.currency_options ?? {},
        duration: input.duration,
        durationInMonths: input.duration_in_months ?? null,
        maxRedemptions: input.max_redemptions ?? null,
        redeemBy: input.redeem_by === undefined ? null : new Date(input.redeem_by),
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitEvent(tx, ctx, {
      type: "coupon.created",
      aggregateId: row.id,
      data: couponState(row, ctx.livemode, ctx.now()),
      previousData: null,
    });
    return row;
  });
}

export async function getCoupon({ ctx, input }: Verb<{ id: string }>): Promise<CouponRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(coupons)
    .where(and(live(ctx.accountId), eq(coupons.id, input.id)));
  if (!row) throw notFound("coupon", input.id);
  return row;
}

export async function listCoupons({ ctx, input }: Verb<Page>): Promise<{ rows: CouponRow[] } & PageInfo> {
  const list = listQuery("coupons", ctx.accountId, {});
  return pageOf(list.table, list.where, input, list.options);
}

/** Only `name` and `metadata` change; the terms of a coupon are fixed once customers may hold it. */
export async function updateCoupon({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof CouponUpdateInput> }>): Promise<CouponRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockLiveCoupon(tx, ctx.accountId, input.id);
    const { changes } = input;
    const next = {
      name: changes.name === undefined ? before.name : changes.name,
      metadata: patchRecord(before.metadata, changes.metadata),
    };
    // No state change, no event.
    if (next.name === before.name && JSON.stringify(next.metadata) === JSON.stringify(before.metadata)) return before;

    const after = one(await tx
      .update(coupons)
      .set({ ...next, updated: ctx.now() })
      .where(eq(coupons.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "coupon.updated",
      aggregateId: before.id,
      data: couponState(after, ctx.livemode, ctx.now()),
      previousData: couponState(before, ctx.livemode, ctx.now()),
    });
    return after;
  });
}

/** Soft delete: no new redemptions; discounts already applied keep their coupon. */
export async function deleteCoupon({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    const before = await lockLiveCoupon(tx, ctx.accountId, input.id);
    const now = ctx.now();
    const after = one(await tx
      .update(coupons)
      .set({ deletedAt: now, updated: now })
      .where(eq(coupons.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "coupon.deleted",
      aggregateId: before.id,
      data: { ...couponState(after, ctx.livemode, ctx.now()), deleted: true },
      previousData: couponState(before, ctx.livemode, ctx.now()),
    });
    return { id: before.id };
  });
}
