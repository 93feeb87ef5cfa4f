import { handle, routeHandlers } from "@/lib/api/handler";
import { getRefundOperation } from "@/lib/refunds/operations";
import { serializeRefund } from "@/lib/refunds/serialize";
import { getRefund } from "@/lib/refunds/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getRefundOperation, async ({ ctx, params }) =>
    serializeRefund(await getRefund({ ctx, input: { id: params.refund_id } }), ctx.livemode),
  ),
});
