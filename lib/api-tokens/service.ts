import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { listQuery, pageOf } from "@/db/page";
import { apiTokens } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { forgetCachedTokens, issueToken, newTokenSecret } from "@/lib/auth/tokens";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { auditMetadata } from "@/lib/events/audit";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import type { ApiToken, ApiTokenCreateInput, ApiTokenRollInput } from "./schema";
import { realNow } from "@/lib/time";

type TokenRow = typeof apiTokens.$inferSelect;

/** Token expiry is real time (as revocation is), never an account's test clock. */
function statusOf(row: TokenRow, now: Date): "active" | "expired" | "revoked" {
  if (row.revokedAt) return "revoked";
  if (row.expiresAt && row.expiresAt <= now) return "expired";
  return "active";
}

export function serializeApiToken(row: TokenRow): z.input<typeof ApiToken> {
  const now = realNow();
  const previousLive = row.previousTokenHash !== null && row.previousTokenExpiresAt !== null && row.previousTokenExpiresAt > now;
  return {
    id: row.id,
    object: "api_token",
    name: row.name,
    description: row.description,
    kind: row.kind,
    display: `${row.displayPrefix}…${row.lastFour}`,
    status: statusOf(row, now),
    permissions: row.permissions,
    allowed_ips: row.allowedIps,
    expires_at: row.expiresAt?.toISOString() ?? null,
    previous_secret_expires_at: previousLive ? row.previousTokenExpiresAt!.toISOString() : null,
    created: row.created.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    last_used_ip: row.lastUsedIp,
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
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
  if (expiresAt && expiresAt <= realNow()) {
    throw new ServiceError("validation", "expires_at must be in the future.", {
      errors: [{ field: "expires_at", message: "Must be in the future." }],
    });
  }
  return withChangeTransaction(async (tx) => {
    const issued = await issueToken(tx, {
      accountId: ctx.accountId,
      kind: input.kind,
      name: input.name,
      createdBy: ctx.actor.id ?? undefined,
      description: input.description ?? null,
      permissions: input.permissions ?? null,
      allowedIps: input.allowed_ips ?? null,
      expiresAt,
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
 * A new secret for the same token (its id, kind, permissions and limits stay); the previous secret
 * keeps working for `overlap_seconds` (0: it stops at once), as a webhook endpoint's secret does
 * when rotated. A previous secret still in its overlap from an earlier roll stops at once.
 * Emits `api_key.rolled`, whose data has `previous_secret_expires_at`.
 */
/** The account's token, locked for a change; 404 when the account has none of that id. */
async function lockToken(tx: ChangeTransaction, accountId: string, id: string): Promise<TokenRow> {
  const [row] = await tx.select().from(apiTokens).where(and(eq(apiTokens.accountId, accountId), eq(apiTokens.id, id))).for("update");
  if (!row) throw notFound("API token", id);
  return row;
}

export async function rollApiToken({
  ctx,
  input,
}: Verb<{ id: string } & z.output<typeof ApiTokenRollInput>>): Promise<{ row: TokenRow; token: string }> {
  const result = await withChangeTransaction(async (tx) => {
    const before = await lockToken(tx, ctx.accountId, input.id);
    if (before.revokedAt) throw new ServiceError("conflict", "A revoked token cannot be rolled.");
    const secret = newTokenSecret(before.kind);
    const overlapEnds = input.overlap_seconds > 0 ? new Date(realNow().getTime() + input.overlap_seconds * 1000) : null;
    const after = one(
      await tx
        .update(apiTokens)
        .set({
          tokenHash: secret.tokenHash,
          displayPrefix: secret.displayPrefix,
          lastFour: secret.lastFour,
          previousTokenHash: overlapEnds ? before.tokenHash : null,
          previousTokenExpiresAt: overlapEnds,
        })
        .where(eq(apiTokens.id, input.id))
        .returning(),
    );
    await emitEvent(tx, ctx, {
      type: "api_key.rolled",
      aggregateId: after.id,
      data: serializeApiToken(after),
      previousData: serializeApiToken(before),
      metadata: auditMetadata(ctx),
    });
    return { row: after, token: secret.token };
  });
  forgetCachedTokens(ctx.accountId);
  return result;
}

/**
 * Revocation takes effect on the token's next call in this process, and within
 * TOKEN_CACHE_TTL_MS (1 s) in every other server process. Revoking twice is harmless (and emits
 * `api_token.revoked` once).
 */
export async function revokeApiToken({ ctx, input }: Verb<{ id: string }>): Promise<TokenRow> {
  const row = await withChangeTransaction(async (tx) => {
    const before = await lockToken(tx, ctx.accountId, input.id);
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
