import type { customerDiscounts } from "@/db/schema";
import { serializeCoupon, type CouponRow } from "@/lib/coupons/serialize";
import type { DiscountObject } from "./schema";

export type DiscountRow = typeof customerDiscounts.$inferSelect;

/** A discount with the coupon it applies. */
export type DiscountWithCoupon = { discount: DiscountRow; coupon: CouponRow };

/** The discount at `now`, the account's time (its coupon's `valid` depends on it). */
export function serializeDiscount({ discount, coupon }: DiscountWithCoupon, livemode: boolean, now: Date): DiscountObject {
  return {
    id: discount.id,
    object: "discount",
    customer: discount.customerId,
    coupon: serializeCoupon(coupon, livemode, now),
    start: discount.start.toISOString(),
    end: discount.end?.toISOString() ?? null,
    livemode,
  };
}

/** The full entity state recorded in events. */
export function discountState(value: DiscountWithCoupon, livemode: boolean, now: Date): Record<string, unknown> {
  return serializeDiscount(value, livemode, now);
}
