import { handle, routeHandlers } from "@/lib/api/handler";
import { confirmPaymentIntentOperation } from "@/lib/payments/operations";
import { serializePaymentIntent } from "@/lib/payments/serialize";
import { confirmPaymentIntent } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(confirmPaymentIntentOperation, async ({ ctx, params, body }) =>
    serializePaymentIntent(
      await confirmPaymentIntent({ ctx, input: { id: params.payment_intent_id, paymentMethod: body.payment_method } }),
      ctx.livemode,
    ),
  ),
});
