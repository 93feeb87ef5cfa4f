import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createCouponOperation, listCouponsOperation } from "@/lib/coupons/operations";
import { serializeCoupon } from "@/lib/coupons/serialize";
import { createCoupon, listCoupons } from "@/lib/coupons/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listCouponsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCoupons({ ctx, input: query });
    return envelope(rows.map((row) => serializeCoupon(row, ctx.livemode)), info);
  }),
  POST: handle(createCouponOperation, async ({ ctx, body }) =>
    serializeCoupon(await createCoupon({ ctx, input: body }), ctx.livemode),
  ),
});
