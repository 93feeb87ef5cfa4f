import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { apiTokens } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { forgetCachedTokens, issueToken } from "@/lib/auth/tokens";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import type { ApiToken, ApiTokenCreateInput } from "./schema";
import { realNow } from "@/lib/clock/time";

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

/** A new token; the full token is in the answer and nowhere else, ever. */
export async function createApiToken({
  ctx,
  input,
}: Verb<z.output<typeof ApiTokenCreateInput>>): Promise<{ row: TokenRow; token: string }> {
  const db = await getDb();
  const issued = await issueToken(db, {
    accountId: ctx.accountId,
    kind: input.kind,
    name: input.name,
    createdBy: ctx.actor.id ?? undefined,
  });
  const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, issued.id));
  return { row: row!, token: issued.token };
}

/**
 * Revocation takes effect on the token's next call in this process, and within
 * TOKEN_CACHE_TTL_MS (1 s) in every other server process. Revoking twice is harmless.
 */
export async function revokeApiToken({ ctx, input }: Verb<{ id: string }>): Promise<TokenRow> {
  const db = await getDb();
  await db
    .update(apiTokens)
    .set({ revokedAt: realNow() })
    .where(and(eq(apiTokens.accountId, ctx.accountId), eq(apiTokens.id, input.id), isNull(apiTokens.revokedAt)));
  forgetCachedTokens(ctx.accountId);
  const [row] = await db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.accountId, ctx.accountId), eq(apiTokens.id, input.id)));
  if (!row) throw notFound("API token", input.id);
  return row;
}
