import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createRefundOperation, listRefundsOperation } from "@/lib/refunds/operations";
import { serializeRefund } from "@/lib/refunds/serialize";
import { createRefund, listRefunds } from "@/lib/refunds/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listRefundsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listRefunds({ ctx, input: query });
    return envelope(rows.map((row) => serializeRefund(row, ctx.livemode)), info);
  }),
  POST: handle(createRefundOperation, async ({ ctx, body }) =>
    serializeRefund(await createRefund({ ctx, input: body }), ctx.livemode),
  ),
});
