import { createApiTokenOperation, listApiTokensOperation } from "@/lib/api-tokens/operations";
import { createApiToken, listApiTokens, serializeApiToken } from "@/lib/api-tokens/service";
import { handle, routeHandlers } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listApiTokensOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listApiTokens({ ctx, input: query });
    return envelope(rows.map(serializeApiToken), info);
  }),
  POST: handle(createApiTokenOperation, async ({ ctx, body }) => {
    const { row, token } = await createApiToken({ ctx, input: body });
    return { ...serializeApiToken(row), token };
  }),
});
