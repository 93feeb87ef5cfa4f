import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { listQuery, pageOf } from "@/db/page";
import { apiTokens } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { forgetCachedTokens, issueToken } from "@/lib/auth/tokens";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { auditMetadata } from "@/lib/events/audit";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import type { ApiToken, ApiTokenCreateInput } from "./schema";
import { realNow } from "@/lib/time";

type TokenRow = typeof apiTokens.$inferSelect;

export function serializeApiToken(row: TokenRow): z.input<typeof ApiToken> {
  return {
    id: row.id,
    object: "api_token",
    name: row.name,
    kind: row.kind,
    display: `${row.displayPrefix}…${row.lastFour}`,
    status: row.revokedAt ? "revoked" : "active",
    created: row.created.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

export async function listApiTokens({ ctx, input }: Verb<Page>): Promise<{ rows: TokenRow[] } & PageInfo> {
  const list = listQuery("api_tokens", ctx.accountId, {});
  return pageOf(list.table, list.where, input, list.options);
}

/** A new token; the full token is in the answer and nowhere else, ever (nor in its `api_token.created` event). */
export async function createApiToken({
  ctx,
  input,
}: Verb<z.output<typeof ApiTokenCreateInput>>): Promise<{ row: TokenRow; token: string }> {
  return withChangeTransaction(async (tx) => {
    const issued = await issueToken(tx, {
      accountId: ctx.accountId,
      kind: input.kind,
      name: input.name,
      createdBy: ctx.actor.id ?? undefined,
    });
    const row = one(await tx.select().from(apiTokens).where(eq(apiTokens.id, issued.id)));
    await emitEvent(tx, ctx, {
      type: "api_token.created",
      aggregateId: row.id,
      data: serializeApiToken(row),
      previousData: null,
      metadata: auditMetadata(ctx),
    });
    return { row, token: issued.token };
  });
}

/**
 * Revocation takes effect on the token's next call in this process, and within
 * TOKEN_CACHE_TTL_MS (1 s) in every other server process. Revoking twice is harmless (and emits
 * `api_token.revoked` once).
 */
export async function revokeApiToken({ ctx, input }: Verb<{ id: string }>): Promise<TokenRow> {
  const row = await withChangeTransaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.accountId, ctx.accountId), eq(apiTokens.id, input.id)))
      .for("update");
    if (!before) throw notFound("API token", input.id);
    if (before.revokedAt) return before;
    const after = one(await tx.update(apiTokens).set({ revokedAt: realNow() }).where(eq(apiTokens.id, input.id)).returning());
    await emitEvent(tx, ctx, {
      type: "api_token.revoked",
      aggregateId: after.id,
      data: serializeApiToken(after),
      previousData: serializeApiToken(before),
      metadata: auditMetadata(ctx),
    });
    return after;
  });
  forgetCachedTokens(ctx.accountId);
  return row;
}
