import { handle, routeHandlers } from "@/lib/api/handler";
import { getPaymentOperation } from "@/lib/payments/operations";
import { serializePayment } from "@/lib/payments/serialize";
import { getPayment } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getPaymentOperation, async ({ ctx, params }) =>
    serializePayment(await getPayment({ ctx, input: { id: params.payment_id } }), ctx.livemode),
  ),
});
