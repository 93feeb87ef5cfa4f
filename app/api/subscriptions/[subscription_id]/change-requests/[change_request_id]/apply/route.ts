import { handle, routeHandlers } from "@/lib/api/handler";
import { applyChangeRequestOperation } from "@/lib/subscription-changes/operations";
import { serializeChangeRequest } from "@/lib/subscription-changes/serialize";
import { applyChangeRequest } from "@/lib/subscription-changes/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(applyChangeRequestOperation, async ({ ctx, params, body }) =>
    serializeChangeRequest(
      await applyChangeRequest({
        ctx,
        input: {
          subscriptionId: params.subscription_id,
          id: params.change_request_id,
          paymentMethod: body.payment_method,
          sandboxFailStep: body.sandbox_fail_step,
        },
      }),
      ctx.livemode,
    ),
  ),
});
