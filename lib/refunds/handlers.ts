import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { createRefundOperation, getRefundOperation, listRefundsOperation } from "./operations";
import { serializeRefund } from "./serialize";
import { createRefund, getRefund, listRefunds } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const refundHandlers = [
  handle(listRefundsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listRefunds({ ctx, input: query });
    return envelope(rows.map((row) => serializeRefund(row, ctx.livemode)), info);
  }),
  handle(createRefundOperation, async ({ ctx, body }) =>
    serializeRefund(await createRefund({ ctx, input: body }), ctx.livemode),
  ),
  handle(getRefundOperation, async ({ ctx, params }) =>
    serializeRefund(await getRefund({ ctx, input: { id: params.refund_id } }), ctx.livemode),
  ),
];
