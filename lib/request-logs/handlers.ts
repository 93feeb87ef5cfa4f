import { handle } from "@/lib/api/handler";
import { getRequestLogOperation, listRequestLogsOperation } from "./operations";
import { serializeRequestLog, serializeRequestLogDetail } from "./serialize";
import { getRequestLog, listRequestLogs } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const requestLogHandlers = [
  handle(listRequestLogsOperation, async ({ ctx, query }) => {
    const { rows, hasMore } = await listRequestLogs({ ctx, input: query });
    return { items: rows.map(serializeRequestLog), has_more: hasMore };
  }),
  handle(getRequestLogOperation, async ({ ctx, params }) => {
    const { row, events } = await getRequestLog({ ctx, input: { id: params.request_id } });
    return serializeRequestLogDetail(row, events);
  }),
];
