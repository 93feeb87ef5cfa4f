import { handle, routeHandlers } from "@/lib/api/handler";
import { getPaymentIntentOperation } from "@/lib/payments/operations";
import { serializePaymentIntent } from "@/lib/payments/serialize";
import { getPaymentIntent } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getPaymentIntentOperation, async ({ ctx, params }) =>
    serializePaymentIntent(await getPaymentIntent({ ctx, input: { id: params.payment_intent_id } }), ctx.livemode),
  ),
});
