import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createCouponOperation,
  deleteCouponOperation,
  getCouponOperation,
  listCouponsOperation,
  updateCouponOperation,
} from "./operations";
import { serializeCoupon } from "./serialize";
import { createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const couponHandlers = [
  handle(listCouponsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCoupons({ ctx, input: query });
    return envelope(rows.map((row) => serializeCoupon(row, ctx.livemode, ctx.now())), info);
  }),
  handle(createCouponOperation, async ({ ctx, body }) =>
    serializeCoupon(await createCoupon({ ctx, input: body }), ctx.livemode, ctx.now()),
  ),
  handle(getCouponOperation, async ({ ctx, params }) =>
    serializeCoupon(await getCoupon({ ctx, input: { id: params.coupon_id } }), ctx.livemode, ctx.now()),
  ),
  handle(updateCouponOperation, async ({ ctx, params, body }) =>
    serializeCoupon(await updateCoupon({ ctx, input: { id: params.coupon_id, changes: body } }), ctx.livemode, ctx.now()),
  ),
  handle(deleteCouponOperation, async ({ ctx, params }) => {
    const { id } = await deleteCoupon({ ctx, input: { id: params.coupon_id } });
    return { id, object: "coupon" as const, deleted: true as const };
  }),
];
