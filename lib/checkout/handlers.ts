import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { completeCheckoutSession } from "./complete";
import {
  completeCheckoutSessionOperation,
  createCheckoutSessionOperation,
  deleteCheckoutSessionOperation,
  expireCheckoutSessionOperation,
  getCheckoutSessionOperation,
  listCheckoutSessionsOperation,
  updateCheckoutSessionOperation,
} from "./operations";
import { serializeCheckoutSession, serializeCompletion } from "./serialize";
import {
  createCheckoutSession,
  deleteCheckoutSession,
  expireCheckoutSession,
  getCheckoutSession,
  listCheckoutSessions,
  updateCheckoutSession,
} from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const checkoutHandlers = [
  handle(listCheckoutSessionsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCheckoutSessions({ ctx, input: query });
    return envelope(rows.map((row) => serializeCheckoutSession(row, ctx.livemode)), info);
  }),
  handle(createCheckoutSessionOperation, async ({ ctx, body }) =>
    serializeCheckoutSession(await createCheckoutSession({ ctx, input: body }), ctx.livemode),
  ),
  handle(getCheckoutSessionOperation, async ({ ctx, params }) =>
    serializeCheckoutSession(await getCheckoutSession({ ctx, input: { id: params.session_id } }), ctx.livemode),
  ),
  handle(updateCheckoutSessionOperation, async ({ ctx, params, body }) =>
    serializeCheckoutSession(await updateCheckoutSession({ ctx, input: { id: params.session_id, changes: body } }), ctx.livemode),
  ),
  handle(deleteCheckoutSessionOperation, async ({ ctx, params }) => {
    const { id } = await deleteCheckoutSession({ ctx, input: { id: params.session_id } });
    return { id, object: "checkout_session" as const, deleted: true as const };
  }),
  handle(expireCheckoutSessionOperation, async ({ ctx, params }) =>
    serializeCheckoutSession(await expireCheckoutSession({ ctx, input: { id: params.session_id } }), ctx.livemode),
  ),
  // Public: the hosted page calls it without a token (the session id is the capability).
  handle(completeCheckoutSessionOperation, async ({ params, body, request, requestId }) =>
    serializeCompletion(
      await completeCheckoutSession({
        input: {
          id: params.session_id,
          email: body.email,
          paymentMethod: body.payment_method,
          // handle() has validated the header when present.
          correlationId: request.headers.get("x-correlation-id") ?? requestId,
          requestId,
        },
      }),
    ),
  ),
];
