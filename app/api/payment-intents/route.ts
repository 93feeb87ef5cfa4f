import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createPaymentIntentOperation, listPaymentIntentsOperation } from "@/lib/payments/operations";
import { serializePaymentIntent } from "@/lib/payments/serialize";
import { createPaymentIntent, listPaymentIntents } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listPaymentIntentsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listPaymentIntents({ ctx, input: query });
    return envelope(rows.map((row) => serializePaymentIntent(row, ctx.livemode)), info);
  }),
  POST: handle(createPaymentIntentOperation, async ({ ctx, body }) =>
    serializePaymentIntent(await createPaymentIntent({ ctx, input: body }), ctx.livemode),
  ),
});
