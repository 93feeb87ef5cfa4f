import { z } from "zod";
import { Coupon } from "@/lib/coupons/schema";
import { DateTime } from "@/lib/schemas";

export const DiscountApplyInput = z
  .strictObject({
    coupon: z.string().min(1).max(100).meta({ description: "The coupon to apply (`cpn_…`).", example: "cpn_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
  })
  .meta({ id: "DiscountApplyInput" });

export const Discount = z
  .object({
    id: z.string().meta({ example: "di_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("discount"),
    customer: z.string().meta({ description: "The customer's id." }),
    coupon: Coupon,
    start: DateTime,
    end: DateTime.nullable().meta({
      description:
        "When a `repeating` coupon stops applying; for a `once` coupon, null until the invoice it discounts is finalized (then that time, in `customer.discount.deleted`); null for forever.",
    }),
    livemode: z.boolean(),
  })
  .meta({ id: "Discount" });

export const DeletedDiscount = z
  .object({ id: z.string(), object: z.literal("discount"), deleted: z.literal(true) })
  .meta({ id: "DeletedDiscount" });

export type DiscountObject = z.input<typeof Discount>;
