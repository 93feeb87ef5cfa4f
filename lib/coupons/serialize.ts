import type { coupons } from "@/db/schema";
import { bpsToPercent, type CouponObject } from "./schema";

export type CouponRow = typeof coupons.$inferSelect;

/** Why the coupon cannot be applied at `now` (deleted, expired, exhausted), or null when it can. */
export function couponUnusableReason(row: CouponRow, now: Date): string | null {
  if (row.deletedAt !== null) return `Coupon '${row.id}' is deleted.`;
  if (row.redeemBy !== null && row.redeemBy.getTime() <= now.getTime()) {
    return `Coupon '${row.id}' expired at ${row.redeemBy.toISOString()} (redeem_by).`;
  }
  if (row.maxRedemptions !== null && row.timesRedeemed >= row.maxRedemptions) {
    return `Coupon '${row.id}' has reached its max_redemptions (${row.maxRedemptions}).`;
  }
  return null;
}

/** The coupon's `valid`: it can be applied at `now`, the account's time (a sandbox's test clock counts). */
export function isCouponValid(row: CouponRow, now: Date): boolean {
  return couponUnusableReason(row, now) === null;
}

/** The coupon as the API shows it (and as events record it) at `now`, the account's time. */
export function serializeCoupon(row: CouponRow, livemode: boolean, now: Date): CouponObject {
  return {
    id: row.id,
    object: "coupon",
    name: row.name,
    percent_off: row.percentOffBps === null ? null : bpsToPercent(row.percentOffBps),
    amount_off_atom: row.amountOffAtom,
    currency: row.currency,
    currency_options: row.currencyOptions,
    duration: row.duration,
    duration_in_months: row.durationInMonths,
    max_redemptions: row.maxRedemptions,
    times_redeemed: row.timesRedeemed,
    redeem_by: row.redeemBy?.toISOString() ?? null,
    valid: isCouponValid(row, now),
    metadata: row.metadata,
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

/** The full entity state recorded in events. */
export function couponState(row: CouponRow, livemode: boolean, now: Date): Record<string, unknown> {
  return serializeCoupon(row, livemode, now);
}
