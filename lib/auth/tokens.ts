import { createHash, randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts, apiTokens } from "@/db/schema";
import { config } from "@/lib/config";
import { ServiceError } from "@/lib/errors";
import { newId } from "@/lib/ids";

export type TokenKind = "secret" | "publishable";

const KIND_PREFIX: Record<TokenKind, string> = { secret: "st_", publishable: "pt_" };
const SECRET_BYTES = 20; // 160 random bits, 32 characters of Crockford base32
const TOKEN_PATTERN = /^(st|pt)_(prod|stg)_([0-9a-hjkmnp-tv-z]{32})$/;
/** `last_used_at` is written at most this often per token, so reads stay reads. */
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

/** Resolves a bearer token to its account; the format is checked before any lookup. */
export async function authenticateToken(token: string): Promise<Principal> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) throw unauthorized("The API token is malformed. Tokens look like st_prod_… or pt_prod_….");
  if (match[2] !== config().environment) {
    throw unauthorized(`This is a token of the '${match[2]}' environment; this server is '${config().environment}'.`);
  }
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
    .where(eq(apiTokens.tokenHash, hashToken(token)))
    .limit(1);
  if (!row) throw unauthorized("The API token is not valid.");
  if (row.revokedAt) throw unauthorized("The API token has been revoked.");

  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db
      .update(apiTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          eq(apiTokens.id, row.id),
          or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`)),
        ),
      );
  }
  return {
    tokenId: row.id,
    kind: row.kind,
    accountId: row.accountId,
    organizationId: row.organizationId,
    livemode: row.livemode,
    clockOffsetMs: row.clockOffsetMs,
  };
}
