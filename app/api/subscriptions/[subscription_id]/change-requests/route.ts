import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createChangeRequestOperation, listChangeRequestsOperation } from "@/lib/subscription-changes/operations";
import { serializeChangeRequest } from "@/lib/subscription-changes/serialize";
import { createChangeRequest, listChangeRequests } from "@/lib/subscription-changes/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listChangeRequestsOperation, async ({ ctx, params, query }) => {
    const { items, ...info } = await listChangeRequests({ ctx, input: { ...query, subscriptionId: params.subscription_id } });
    return envelope(items.map((item) => serializeChangeRequest(item, ctx.livemode)), info);
  }),
  POST: handle(createChangeRequestOperation, async ({ ctx, params, body }) =>
    serializeChangeRequest(await createChangeRequest({ ctx, input: { ...body, subscriptionId: params.subscription_id } }), ctx.livemode),
  ),
});
