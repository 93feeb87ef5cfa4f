import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { getDisputeOperation, listDisputesOperation } from "./operations";
import { serializeDispute } from "./serialize";
import { getDispute, listDisputes } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const disputeHandlers = [
  handle(listDisputesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listDisputes({ ctx, input: query });
    return envelope(rows.map((row) => serializeDispute(row, ctx.livemode)), info);
  }),
  handle(getDisputeOperation, async ({ ctx, params }) => serializeDispute(await getDispute({ ctx, input: { id: params.dispute_id } }), ctx.livemode)),
];
