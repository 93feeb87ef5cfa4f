import { handle, routeHandlers } from "@/lib/api/handler";
import { cancelPaymentIntentOperation } from "@/lib/payments/operations";
import { serializePaymentIntent } from "@/lib/payments/serialize";
import { cancelPaymentIntent } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(cancelPaymentIntentOperation, async ({ ctx, params }) =>
    serializePaymentIntent(await cancelPaymentIntent({ ctx, input: { id: params.payment_intent_id } }), ctx.livemode),
  ),
});
