import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createCheckoutSessionOperation, listCheckoutSessionsOperation } from "@/lib/checkout/operations";
import { serializeCheckoutSession } from "@/lib/checkout/serialize";
import { createCheckoutSession, listCheckoutSessions } from "@/lib/checkout/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listCheckoutSessionsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCheckoutSessions({ ctx, input: query });
    return envelope(rows.map((row) => serializeCheckoutSession(row, ctx.livemode)), info);
  }),
  POST: handle(createCheckoutSessionOperation, async ({ ctx, body }) =>
    serializeCheckoutSession(await createCheckoutSession({ ctx, input: body }), ctx.livemode),
  ),
});
