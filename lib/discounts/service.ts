import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { coupons, customerDiscounts, customers } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { lockCouponRow } from "@/lib/coupons/service";
import { couponUnusableReason, type CouponRow } from "@/lib/coupons/serialize";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { addUtcMonths } from "@/lib/time";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { discountState, type DiscountWithCoupon } from "./serialize";

const activeOf = (customerId: string) =>
  and(eq(customerDiscounts.customerId, customerId), eq(customerDiscounts.active, true), isNull(customerDiscounts.deletedAt));

/** Locks the customer first: every discount change of one customer serializes on that row. */
async function lockCustomer(tx: ChangeTransaction, accountId: string, id: string): Promise<void> {
  const [row] = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.id, id), isNull(customers.deletedAt)))
    .for("update");
  if (!row) throw notFound("customer", id);
}

const noDiscount = (customerId: string) =>
  new ServiceError("not_found", `Customer '${customerId}' has no discount.`);

/** A coupon that cannot be applied now is a 422 naming `coupon` that says why. */
function assertUsable(coupon: CouponRow | null, id: string, now: Date): asserts coupon is CouponRow {
  const reason = coupon ? couponUnusableReason(coupon, now) : `No such coupon: '${id}'.`;
  if (reason !== null) throw validationFailed([{ field: "coupon", message: reason }], reason);
}

async function couponById(tx: ChangeTransaction, id: string): Promise<CouponRow> {
  const [row] = await tx.select().from(coupons).where(eq(coupons.id, id));
  return row!; // a foreign key guarantees it
}

/**
 * Applies a coupon to a customer and counts the redemption, in one transaction. The coupon row
 * is locked (after the customer's), so concurrent redemptions of a coupon at its limit cannot
 * both pass the check. A customer holds one discount: applying another replaces it in place
 * (same discount id, `customer.discount.updated`).
 */
export async function applyDiscount({
  ctx,
  input,
}: Verb<{ customerId: string; couponId: string }>): Promise<DiscountWithCoupon> {
  return withChangeTransaction(async (tx) => {
    await lockCustomer(tx, ctx.accountId, input.customerId);
    const coupon = await lockCouponRow(tx, ctx.accountId, input.couponId);
    const now = ctx.now();
    assertUsable(coupon, input.couponId, now);

    const redeemed = one(await tx
      .update(coupons)
      .set({ timesRedeemed: coupon.timesRedeemed + 1, updated: now })
      .where(eq(coupons.id, coupon.id))
      .returning());
    const terms = {
      couponId: coupon.id,
      start: now,
      // Creation requires duration_in_months exactly for repeating coupons.
      end: coupon.duration === "repeating" && coupon.durationInMonths !== null ? addUtcMonths(now, coupon.durationInMonths) : null,
      updated: now,
    };

    const [existing] = await tx.select().from(customerDiscounts).where(activeOf(input.customerId)).for("update");
    if (existing) {
      // The previous state shows the old coupon as it was before this redemption.
      const previousCoupon = existing.couponId === coupon.id ? coupon : await couponById(tx, existing.couponId);
      const after = one(await tx.update(customerDiscounts).set(terms).where(eq(customerDiscounts.id, existing.id)).returning());
      const result = { discount: after, coupon: redeemed };
      await emitEvent(tx, ctx, {
        type: "customer.discount.updated",
        aggregateId: existing.id,
        data: discountState(result, ctx.livemode, ctx.now()),
        previousData: discountState({ discount: existing, coupon: previousCoupon }, ctx.livemode, ctx.now()),
      });
      return result;
    }

    const created = one(await tx
      .insert(customerDiscounts)
      .values({ id: newId("customerDiscount"), accountId: ctx.accountId, customerId: input.customerId, created: now, ...terms })
      .returning());
    const result = { discount: created, coupon: redeemed };
    await emitEvent(tx, ctx, {
      type: "customer.discount.created",
      aggregateId: created.id,
      data: discountState(result, ctx.livemode, ctx.now()),
      previousData: null,
    });
    return result;
  });
}

export async function getDiscount({ ctx, input }: Verb<{ customerId: string }>): Promise<DiscountWithCoupon> {
  const found = await findDiscount({ ctx, input });
  if (!found) throw noDiscount(input.customerId);
  return found;
}

/**
 * The customer's discount, or null when they have none (a missing customer is still a 404): what
 * `GET /customers/{id}?expand=discount` shows, so a page can read it without a 404 call.
 */
export async function findDiscount({ ctx, input }: Verb<{ customerId: string }>): Promise<DiscountWithCoupon | null> {
  const db = await getDb();
  const [customer] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customerId), isNull(customers.deletedAt)));
  if (!customer) throw notFound("customer", input.customerId);
  const [row] = await db
    .select({ discount: customerDiscounts, coupon: coupons })
    .from(customerDiscounts)
    .innerJoin(coupons, eq(coupons.id, customerDiscounts.couponId))
    .where(activeOf(input.customerId));
  return row ?? null;
}

/** Ends the customer's discount now. The redemption stays counted on the coupon. */
export async function deleteDiscount({ ctx, input }: Verb<{ customerId: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    await lockCustomer(tx, ctx.accountId, input.customerId);
    const [before] = await tx.select().from(customerDiscounts).where(activeOf(input.customerId)).for("update");
    if (!before) throw noDiscount(input.customerId);
    const now = ctx.now();
    await endDiscount(tx, ctx, before, { deletedAt: now, updated: now });
    return { id: before.id };
  });
}

/**
 * A `once` coupon discounts exactly one invoice: finalizing the first invoice it discounted ends
 * the discount, in that finalization's transaction (docs/billing.md, "Once coupons"). As in
 * Stripe the customer then has no discount: `end` is the finalization time, the discount is no
 * longer active (a read answers 404, a new coupon may be applied), and `customer.discount.deleted`
 * says so. The caller holds the customer's row lock (finalization's balance step takes it), the
 * order every discount change locks in.
 */
export async function endOnceDiscount(tx: ChangeTransaction, ctx: ServiceContext, discountId: string, now: Date): Promise<void> {
  const [before] = await tx
    .select()
    .from(customerDiscounts)
    .where(and(eq(customerDiscounts.id, discountId), eq(customerDiscounts.active, true), isNull(customerDiscounts.deletedAt)))
    .for("update");
  // Replaced or removed meanwhile: nothing of this discount is left to end.
  if (!before) return;
  await endDiscount(tx, ctx, before, { end: now, updated: now });
}

/** Makes a discount inactive with `ending` (removed: `deletedAt`; used up: `end`) and says so with `customer.discount.deleted`. */
async function endDiscount(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: typeof customerDiscounts.$inferSelect,
  ending: { deletedAt: Date; updated: Date } | { end: Date; updated: Date },
): Promise<void> {
  const after = one(await tx.update(customerDiscounts).set({ active: false, ...ending }).where(eq(customerDiscounts.id, before.id)).returning());
  const coupon = await couponById(tx, before.couponId);
  await emitEvent(tx, ctx, {
    type: "customer.discount.deleted",
    aggregateId: before.id,
    data: { ...discountState({ discount: after, coupon }, ctx.livemode, ctx.now()), deleted: true },
    previousData: discountState({ discount: before, coupon }, ctx.livemode, ctx.now()),
  });
}
