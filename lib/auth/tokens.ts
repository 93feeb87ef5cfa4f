import { createHash, randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import ipaddr from "ipaddr.js";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts, apiTokens } from "@/db/schema";
import { config } from "@/lib/config";
import type { TokenKind } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import type { Permissions } from "@/lib/permissions";

const KIND_PREFIX: Record<TokenKind, string> = { secret: "st_", publishable: "pt_", restricted: "rk_" };
const SECRET_BYTES = 20; // 160 random bits, 32 characters of Crockford base32
const TOKEN_PATTERN = /^(st|pt|rk)_(prod|stg)_([0-9a-hjkmnp-tv-z]{32})$/;
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

/** A new secret of a kind: `st_prod_…`, `pt_prod_…`, `rk_prod_…`. */
export function newTokenSecret(kind: TokenKind): { token: string; displayPrefix: string; tokenHash: string; lastFour: string } {
  const displayPrefix = `${KIND_PREFIX[kind]}${config().environment}_`;
  const token = displayPrefix + base32crockford.encode(randomBytes(SECRET_BYTES)).toLowerCase();
  return { token, displayPrefix, tokenHash: hashToken(token), lastFour: token.slice(-4) };
}

/** What a restricted key carries besides its name (null for the other kinds). */
export type TokenLimits = {
  description?: string | null;
  permissions?: Permissions | null;
  allowedIps?: string[] | null;
  expiresAt?: Date | null;
};

/** Creates a token; the full token is returned here and never again. */
export async function issueToken(
  executor: Executor,
  input: { accountId: string; kind: TokenKind; name: string; createdBy?: string } & TokenLimits,
): Promise<IssuedToken> {
  const { token, displayPrefix } = newTokenSecret(input.kind);
  const row = {
    id: newId("apiToken"),
    accountId: input.accountId,
    kind: input.kind,
    name: input.name,
    tokenHash: hashToken(token),
    displayPrefix,
    lastFour: token.slice(-4),
    createdBy: input.createdBy ?? null,
    description: input.description ?? null,
    permissions: input.permissions ?? null,
    allowedIps: input.allowedIps ?? null,
    expiresAt: input.expiresAt ?? null,
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
  /** A restricted key's grants; null for secret and publishable tokens. */
  permissions: Permissions | null;
};

/** What is checked on every call, cached or not: expiry and the client's address. */
type Limits = {
  /** The key's `expires_at`, or a rolled secret's end of overlap, whichever comes first. */
  expiresAt: Date | null;
  /** True when the secret presented is the previous one of a roll (the message says so). */
  rolled: boolean;
  allowedIps: string[] | null;
};

const unauthorized = (detail: string, extras: Record<string, unknown> = {}) => new ServiceError("unauthorized", detail, extras);

/**
 * How long a token look-up is reused. Revoking a token (or moving an account's test clock) takes
 * effect at once in the process that does it and within this bound in every other server process.
 * See docs/rules/api.md, "Token look-up cache".
 */
export const TOKEN_CACHE_TTL_MS = 1_000;
const TOKEN_CACHE_MAX = 10_000;

type CachedPrincipal = { principal: Principal; limits: Limits; lastUsedAt: Date | null; expires: number };
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

/**
 * Resolves a bearer token to its account; the format is checked before any lookup. An expired key
 * (or a rolled secret past its overlap) is a 401 naming the instant; a call from outside the key's
 * address ranges is a 403.
 */
export async function authenticateToken(token: string, clientAddress: string | null = null): Promise<Principal> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) throw unauthorized("The API token is malformed. Tokens look like st_prod_…, rk_prod_… or pt_prod_….");
  if (match[2] !== config().environment) {
    throw unauthorized(`This is a token of the '${match[2]}' environment; this server is '${config().environment}'.`);
  }
  const hash = hashToken(token);
  const cached = cache().get(hash);
  if (cached && cached.expires > Date.now()) {
    checkLimits(cached.limits, clientAddress);
    await touch(cached.principal.tokenId, cached, clientAddress);
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
      permissions: apiTokens.permissions,
      allowedIps: apiTokens.allowedIps,
      expiresAt: apiTokens.expiresAt,
      currentHash: apiTokens.tokenHash,
      previousTokenExpiresAt: apiTokens.previousTokenExpiresAt,
      accountId: accounts.id,
      organizationId: accounts.organizationId,
      livemode: accounts.livemode,
      clockOffsetMs: accounts.clockOffsetMs,
    })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .where(or(eq(apiTokens.tokenHash, hash), eq(apiTokens.previousTokenHash, hash)))
    .limit(1);
  if (!row) throw unauthorized("The API token is not valid.");
  if (row.revokedAt) throw unauthorized("The API token has been revoked.");
  // The previous secret of a roll works until its overlap ends (or the key expires, if sooner).
  const secretEnds = row.currentHash === hash ? null : (row.previousTokenExpiresAt ?? new Date(0));
  const limits: Limits =
    secretEnds && (row.expiresAt === null || secretEnds < row.expiresAt)
      ? { expiresAt: secretEnds, rolled: true, allowedIps: row.allowedIps }
      : { expiresAt: row.expiresAt, rolled: false, allowedIps: row.allowedIps };
  checkLimits(limits, clientAddress);

  const principal: Principal = {
    tokenId: row.id,
    kind: row.kind,
    accountId: row.accountId,
    organizationId: row.organizationId,
    livemode: row.livemode,
    clockOffsetMs: row.clockOffsetMs,
    permissions: row.kind === "restricted" ? (row.permissions ?? {}) : null,
  };
  const entry = { principal, limits, lastUsedAt: row.lastUsedAt, expires: lookedUpAt + TOKEN_CACHE_TTL_MS };
  await touch(row.id, entry, clientAddress);
  if (cache().size >= TOKEN_CACHE_MAX) cache().delete(cache().keys().next().value!);
  cache().set(hash, entry);
  return principal;
}

/** Expiry (real time) and the key's client address ranges, on every call. */
function checkLimits(limits: Limits, clientAddress: string | null): void {
  if (limits.expiresAt && limits.expiresAt.getTime() <= Date.now()) {
    const at = limits.expiresAt.toISOString();
    throw unauthorized(
      limits.rolled
        ? `This secret of the API token was rolled and stopped working at ${at}; use the new secret.`
        : `The API token expired at ${at}.`,
      { expired_at: at },
    );
  }
  if (limits.allowedIps && !addressAllowed(limits.allowedIps, clientAddress)) {
    throw new ServiceError(
      "forbidden",
      `This API token may not be used from ${clientAddress ?? "an unknown address"}: its allowed ranges are ${limits.allowedIps.join(", ")}.`,
      { error_code: "ip_not_allowed" },
    );
  }
}

/** Whether `address` (IPv4, IPv6, or IPv4-mapped IPv6) lies in one of the CIDR ranges. */
export function addressAllowed(ranges: readonly string[], address: string | null): boolean {
  if (address === null || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return ranges.some((range) => {
    const [network, bits] = ipaddr.parseCIDR(range);
    const net = network.kind() === "ipv6" && (network as ipaddr.IPv6).isIPv4MappedAddress() ? (network as ipaddr.IPv6).toIPv4Address() : network;
    const prefix = net === network ? bits : bits - 96;
    return parsed.kind() === net.kind() && parsed.match(net, prefix);
  });
}

/** Records `last_used_at` and the caller's address, at most once a minute per token, so reads stay reads. */
async function touch(tokenId: string, entry: { lastUsedAt: Date | null }, clientAddress: string | null): Promise<void> {
  if (entry.lastUsedAt && Date.now() - entry.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  entry.lastUsedAt = new Date();
  const db = await getDb();
  await db
    .update(apiTokens)
    .set({ lastUsedAt: sql`now()`, lastUsedIp: clientAddress })
    .where(
      and(
        eq(apiTokens.id, tokenId),
        or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`)),
      ),
    );
}
