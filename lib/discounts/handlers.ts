import { handle } from "@/lib/api/handler";
import { applyDiscountOperation, deleteDiscountOperation, getDiscountOperation } from "./operations";
import { serializeDiscount } from "./serialize";
import { applyDiscount, deleteDiscount, getDiscount } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const discountHandlers = [
  handle(applyDiscountOperation, async ({ ctx, params, body }) =>
    serializeDiscount(
      await applyDiscount({ ctx, input: { customerId: params.customer_id, couponId: body.coupon } }),
      ctx.livemode,
      ctx.now(),
    ),
  ),
  handle(getDiscountOperation, async ({ ctx, params }) =>
    serializeDiscount(await getDiscount({ ctx, input: { customerId: params.customer_id } }), ctx.livemode, ctx.now()),
  ),
  handle(deleteDiscountOperation, async ({ ctx, params }) => {
    const { id } = await deleteDiscount({ ctx, input: { customerId: params.customer_id } });
    return { id, object: "discount" as const, deleted: true as const };
  }),
];
