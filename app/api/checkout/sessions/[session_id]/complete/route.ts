import { handle, routeHandlers } from "@/lib/api/handler";
import { completeCheckoutSession } from "@/lib/checkout/complete";
import { completeCheckoutSessionOperation } from "@/lib/checkout/operations";
import { serializeCompletion } from "@/lib/checkout/serialize";
import { newId } from "@/lib/ids";

// Public: the hosted page calls it without a token (the session id is the capability).
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(completeCheckoutSessionOperation, async ({ params, body, request }) =>
    serializeCompletion(
      await completeCheckoutSession({
        input: {
          id: params.session_id,
          email: body.email,
          paymentMethod: body.payment_method,
          // handle() has validated the header when present.
          correlationId: request.headers.get("x-correlation-id") ?? newId("request"),
        },
      }),
    ),
  ),
});
