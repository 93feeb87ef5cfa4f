import { handle, routeHandlers } from "@/lib/api/handler";
import { deleteCouponOperation, getCouponOperation, updateCouponOperation } from "@/lib/coupons/operations";
import { serializeCoupon } from "@/lib/coupons/serialize";
import { deleteCoupon, getCoupon, updateCoupon } from "@/lib/coupons/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getCouponOperation, async ({ ctx, params }) =>
    serializeCoupon(await getCoupon({ ctx, input: { id: params.coupon_id } }), ctx.livemode),
  ),
  POST: handle(updateCouponOperation, async ({ ctx, params, body }) =>
    serializeCoupon(await updateCoupon({ ctx, input: { id: params.coupon_id, changes: body } }), ctx.livemode),
  ),
  DELETE: handle(deleteCouponOperation, async ({ ctx, params }) => {
    const { id } = await deleteCoupon({ ctx, input: { id: params.coupon_id } });
    return { id, object: "coupon" as const, deleted: true as const };
  }),
});
