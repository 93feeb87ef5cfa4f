import type { customerDiscounts } from "@/db/schema";
import { serializeCoupon, type CouponRow } from "@/lib/coupons/serialize";
import type { DiscountObject } from "./schema";

export type DiscountRow = typeof customerDiscounts.$inferSelect;

/** A discount with the coupon it applies. */
export type DiscountWithCoupon = { discount: DiscountRow; coupon: CouponRow };

export function serializeDiscount({ discount, coupon }: DiscountWithCoupon, livemode: boolean): DiscountObject {
  return {
    id: discount.id,
    object: "discount",
    customer: discount.customerId,
    coupon: serializeCoupon(coupon, livemode),
    start: discount.start.toISOString(),
    end: discount.end?.toISOString() ?? null,
    livemode,
  };
}

/** The full entity state recorded in events. */
export function discountState(value: DiscountWithCoupon, livemode: boolean): Record<string, unknown> {
  return serializeDiscount(value, livemode);
}

/**
 * `start` plus whole calendar months in UTC; a day past the end of the target month is clamped
 * to its last day (Jan 31 + 1 month = Feb 28/29), as billing periods are.
 */
export function addMonths(start: Date, months: number): Date {
  const target = new Date(start.getTime());
  const day = start.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}
