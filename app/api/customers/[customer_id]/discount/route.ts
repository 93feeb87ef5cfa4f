import { handle, routeHandlers } from "@/lib/api/handler";
import { applyDiscountOperation, deleteDiscountOperation, getDiscountOperation } from "@/lib/discounts/operations";
import { serializeDiscount } from "@/lib/discounts/serialize";
import { applyDiscount, deleteDiscount, getDiscount } from "@/lib/discounts/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getDiscountOperation, async ({ ctx, params }) =>
    serializeDiscount(await getDiscount({ ctx, input: { customerId: params.customer_id } }), ctx.livemode),
  ),
  POST: handle(applyDiscountOperation, async ({ ctx, params, body }) =>
    serializeDiscount(
      await applyDiscount({ ctx, input: { customerId: params.customer_id, couponId: body.coupon } }),
      ctx.livemode,
    ),
  ),
  DELETE: handle(deleteDiscountOperation, async ({ ctx, params }) => {
    const { id } = await deleteDiscount({ ctx, input: { customerId: params.customer_id } });
    return { id, object: "discount" as const, deleted: true as const };
  }),
});
