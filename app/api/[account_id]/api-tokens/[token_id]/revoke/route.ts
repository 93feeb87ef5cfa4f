import { revokeApiTokenOperation } from "@/lib/api-tokens/operations";
import { revokeApiToken, serializeApiToken } from "@/lib/api-tokens/service";
import { handle, routeHandlers } from "@/lib/api/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(revokeApiTokenOperation, async ({ ctx, params }) =>
    serializeApiToken(await revokeApiToken({ ctx, input: { id: params.token_id } })),
  ),
});
