import { handle, routeHandlers } from "@/lib/api/handler";
import { replayOperation } from "@/lib/webhooks/operations";
import { replayWindow } from "@/lib/webhooks/replay";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(replayOperation, async ({ ctx, params, body }) =>
    replayWindow({
      ctx,
      input: {
        endpointId: params.endpoint_id,
        since: new Date(body.since),
        until: body.until ? new Date(body.until) : undefined,
        startingAfter: body.starting_after,
      },
    }),
  ),
});
