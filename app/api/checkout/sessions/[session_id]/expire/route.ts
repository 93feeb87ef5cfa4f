import { handle, routeHandlers } from "@/lib/api/handler";
import { expireCheckoutSessionOperation } from "@/lib/checkout/operations";
import { serializeCheckoutSession } from "@/lib/checkout/serialize";
import { expireCheckoutSession } from "@/lib/checkout/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(expireCheckoutSessionOperation, async ({ ctx, params }) =>
    serializeCheckoutSession(await expireCheckoutSession({ ctx, input: { id: params.session_id } }), ctx.livemode),
  ),
});
