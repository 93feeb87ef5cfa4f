import { createHash, randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts, apiTokens } from "@/db/schema";
import { config } from "@/lib/config";
import type { TokenKind } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { newId } from "@/lib/ids";

const KIND_PREFIX: Record<TokenKind, string> = { secret: "st_", publishable: "pt_" };
const SECRET_BYTES = 20; // 160 random bits, 32 characters of Crockford base32
const TOKEN_PATTERN = /^(st|pt)_(prod|stg)_([0-9a-hjkmnp-tv-z]{32})$/;
/** `last_used_at` is written at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export type IssuedToken = {
  id: string;
  token: string;
  kind: TokenKind;
  name: string;
  displayPrefix: string;
  lastFour: string;
};

/** Creates a token; the full token is returned here and never again. */
export async function issueToken(
  executor: Executor,
  input: { accountId: string; kind: TokenKind; name: string; createdBy?: string },
): Promise<IssuedToken> {
  const displayPrefix = `${KIND_PREFIX[input.kind]}${config().environment}_`;
  const token = displayPrefix + base32crockford.encode(randomBytes(SECRET_BYTES)).toLowerCase();
  const row = {
    id: newId("apiToken"),
    accountId: input.accountId,
    kind: input.kind,
    name: input.name,
    tokenHash: hashToken(token),
    displayPrefix,
    lastFour: token.slice(-4),
    createdBy: input.createdBy ?? null,
  };
  await executor.insert(apiTokens).values(row);
  return { id: row.id, token, kind: input.kind, name: input.name, displayPrefix, lastFour: row.lastFour };
}

export type Principal = {
  tokenId: string;
  kind: TokenKind;
  accountId: string;
  organizationId: string;
  livemode: boolean;
  clockOffsetMs: number;
};

const unauthorized = (detail: string) => new ServiceError("unauthorized", detail);

/**
 * How long a token look-up is reused. Revoking a token (or moving an account's test clock) takes
 * effect at once in the process that does it and within this bound in every other server process.
 * See docs/rules/api.md, "Token look-up cache".
 */
export const TOKEN_CACHE_TTL_MS = 1_000;
const TOKEN_CACHE_MAX = 10_000;

type CachedPrincipal = { principal: Principal; lastUsedAt: Date | null; expires: number };
const CACHE = Symbol.for("billing-service.token-cache");
type GlobalWithCache = typeof globalThis & { [CACHE]?: Map<string, CachedPrincipal> };

/** Keyed by token hash; Map order is insertion order, so the first key is the oldest entry. */
function cache(): Map<string, CachedPrincipal> {
  const store = globalThis as GlobalWithCache;
  return (store[CACHE] ??= new Map());
}

/** Drops this process's cached look-ups of an account's tokens (after a revocation or a clock move). */
export function forgetCachedTokens(accountId: string): void {
  for (const [hash, entry] of cache()) if (entry.principal.accountId === accountId) cache().delete(hash);
}

/** Resolves a bearer token to its account; the format is checked before any lookup. */
export async function authenticateToken(token: string): Promise<Principal> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) throw unauthorized("The API token is malformed. Tokens look like st_prod_… or pt_prod_….");
  if (match[2] !== config().environment) {
    throw unauthorized(`This is a token of the '${match[2]}' environment; this server is '${config().environment}'.`);
  }
  const hash = hashToken(token);
  const cached = cache().get(hash);
  if (cached && cached.expires > Date.now()) {
    await touch(cached.principal.tokenId, cached);
    return cached.principal;
  }
  cache().delete(hash);

  // The entry's age counts from before the read: a revocation committed during it still takes
  // effect within TOKEN_CACHE_TTL_MS.
  const lookedUpAt = Date.now();
  const db = await getDb();
  const [row] = await db
    .select({
      id: apiTokens.id,
      kind: apiTokens.kind,
      revokedAt: apiTokens.revokedAt,
      lastUsedAt: apiTokens.lastUsedAt,
      accountId: accounts.id,
      organizationId: accounts.organizationId,
      livemode: accounts.livemode,
      clockOffsetMs: accounts.clockOffsetMs,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(eq(apiTokens.tokenHash, hash))
    .limit(1);
  if (!row) throw unauthorized("The API token is not valid.");
  if (row.revokedAt) throw unauthorized("The API token has been revoked.");

  const principal: Principal = {
    tokenId: row.id,
    kind: row.kind,
    accountId: row.accountId,
    organizationId: row.organizationId,
    livemode: row.livemode,
    clockOffsetMs: row.clockOffsetMs,
  };
  const entry = { principal, lastUsedAt: row.lastUsedAt, expires: lookedUpAt + TOKEN_CACHE_TTL_MS };
  await touch(row.id, entry);
  if (cache().size >= TOKEN_CACHE_MAX) cache().delete(cache().keys().next().value!);
  cache().set(hash, entry);
  return principal;
}

/** Records `last_used_at`, at most once a minute per token, so reads stay reads. */
async function touch(tokenId: string, entry: { lastUsedAt: Date | null }): Promise<void> {
  if (entry.lastUsedAt && Date.now() - entry.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  entry.lastUsedAt = new Date();
  const db = await getDb();
  await db
    .update(apiTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiTokens.id, tokenId),
        or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`)),
      ),
    );
}
