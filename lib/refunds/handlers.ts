import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { RefundListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import { createRefundOperation, getRefundOperation, listRefundsOperation, exportRefundsOperation } from "./operations";
import { serializeRefund } from "./serialize";
import { createRefund, getRefund, listRefunds } from "./service";

/** A page of the refunds list, as the list answers it (also an export's batch). */
async function refundPage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof RefundListQuery> }) {
  const { rows, ...info } = await listRefunds({ ctx, input: query });
  return envelope(rows.map((row) => serializeRefund(row, ctx.livemode)), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const refundHandlers = [
  handle(listRefundsOperation, refundPage),
  handleExport(exportRefundsOperation, "refunds", refundPage),
  handle(createRefundOperation, async ({ ctx, body }) =>
    serializeRefund(await createRefund({ ctx, input: body }), ctx.livemode),
  ),
  handle(getRefundOperation, async ({ ctx, params }) =>
    serializeRefund(await getRefund({ ctx, input: { id: params.refund_id } }), ctx.livemode),
  ),
];
