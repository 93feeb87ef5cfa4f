import { handle, routeHandlers } from "@/lib/api/handler";
import {
  deleteCheckoutSessionOperation,
  getCheckoutSessionOperation,
  updateCheckoutSessionOperation,
} from "@/lib/checkout/operations";
import { serializeCheckoutSession } from "@/lib/checkout/serialize";
import { deleteCheckoutSession, getCheckoutSession, updateCheckoutSession } from "@/lib/checkout/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getCheckoutSessionOperation, async ({ ctx, params }) =>
    serializeCheckoutSession(await getCheckoutSession({ ctx, input: { id: params.session_id } }), ctx.livemode),
  ),
  POST: handle(updateCheckoutSessionOperation, async ({ ctx, params, body }) =>
    serializeCheckoutSession(await updateCheckoutSession({ ctx, input: { id: params.session_id, changes: body } }), ctx.livemode),
  ),
  DELETE: handle(deleteCheckoutSessionOperation, async ({ ctx, params }) => {
    const { id } = await deleteCheckoutSession({ ctx, input: { id: params.session_id } });
    return { id, object: "checkout_session" as const, deleted: true as const };
  }),
});
