import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { checkMayMint } from "./mint-check";
import { createApiTokenOperation, listApiTokensOperation, revokeApiTokenOperation, rollApiTokenOperation } from "./operations";
import { createApiToken, listApiTokens, revokeApiToken, rollApiToken, serializeApiToken } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const apiTokenHandlers = [
  handle(listApiTokensOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listApiTokens({ ctx, input: query });
    return envelope(rows.map(serializeApiToken), info);
  }),
  handle(createApiTokenOperation, async ({ ctx, body }) => {
    checkMayMint(ctx, body.kind, body.permissions ?? null);
    const { row, token } = await createApiToken({ ctx, input: body });
    return { ...serializeApiToken(row), token };
  }),
  handle(rollApiTokenOperation, async ({ ctx, params, body }) => {
    const { row, token } = await rollApiToken({ ctx, input: { id: params.token_id, ...body } });
    return { ...serializeApiToken(row), token };
  }),
  handle(revokeApiTokenOperation, async ({ ctx, params }) =>
    serializeApiToken(await revokeApiToken({ ctx, input: { id: params.token_id } })),
  ),
];
