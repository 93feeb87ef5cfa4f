import { handle, routeHandlers } from "@/lib/api/handler";
import { capturePaymentIntentOperation } from "@/lib/payments/operations";
import { serializePaymentIntent } from "@/lib/payments/serialize";
import { capturePaymentIntent } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(capturePaymentIntentOperation, async ({ ctx, params, body }) =>
    serializePaymentIntent(
      await capturePaymentIntent({ ctx, input: { id: params.payment_intent_id, amountToCapture: body.amount_to_capture } }),
      ctx.livemode,
    ),
  ),
});
