import { createHash } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { isLockNotAvailable } from "@/db/errors";
import { idempotencyKeys } from "@/db/schema";
import { retryableConflict, ServiceError } from "@/lib/errors";
import { DAY_MS } from "@/lib/time";
import { holdsSecret, redactText } from "@/lib/log";

/** Keys are remembered for 24 hours (issue 5); after that the same key starts afresh. */
export const IDEMPOTENCY_TTL_MS = DAY_MS;
/**
 * A key reserved by a request that never finished (its process died) is taken over by a retry
 * after this long. On PostgreSQL a reservation is not even visible until its request commits
 * (lib/idempotency/request.ts); this bounds the embedded database and rows of older versions.
 */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type Reservation = { kind: "new" } | { kind: "replay"; status: number; body: string };
type Key = { accountId: string; key: string };

export function assertUsableKey(key: string): void {
  if (!KEY_PATTERN.test(key)) {
    throw new ServiceError("bad_request", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
}

/** What makes two requests "the same": method, path with query, and the exact body. */
export function requestFingerprint(method: string, pathWithQuery: string, rawBody: string): string {
  return createHash("sha256").update(`${method}\n${pathWithQuery}\n${rawBody}`).digest("hex");
}

/**
 * Claims a key for this request, or says what to do instead: replay the first answer, 409 while
 * the first request is still running, 422 when the key was used for a different request (the
 * statuses of the IETF Idempotency-Key draft).
 */
export async function reserveIdempotencyKey(input: Key & { fingerprint: string; waitMs?: number }): Promise<Reservation> {
  const db = await getDb();
  const now = new Date();
  return db.transaction(async (tx) => {
    const mine = and(eq(idempotencyKeys.accountId, input.accountId), eq(idempotencyKeys.key, input.key));
    // A repeat waits this long for a first request that is still running (its uncommitted row),
    // then answers 409; the first request's own locks keep the server's defaults.
    if (input.waitMs !== undefined) await tx.execute(sql.raw(`set local lock_timeout = ${Math.trunc(input.waitMs)}`));
    try {
      await tx.delete(idempotencyKeys).where(and(mine, lt(idempotencyKeys.expiresAt, now)));
    } catch (error) {
      if (isLockNotAvailable(error)) throw retryableConflict(inUse(input.key));
      throw error;
    }
    let inserted: Array<{ key: string }>;
    try {
      inserted = await tx
      .insert(idempotencyKeys)
      .values({
        accountId: input.accountId,
        key: input.key,
        fingerprint: input.fingerprint,
        state: "in_progress",
        created: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    } catch (error) {
      if (isLockNotAvailable(error)) throw retryableConflict(inUse(input.key));
      throw error;
    }
    if (input.waitMs !== undefined) await tx.execute(sql.raw("set local lock_timeout to default"));
    if (inserted.length > 0) return { kind: "new" };

    const [existing] = await tx.select().from(idempotencyKeys).where(mine);
    if (!existing) throw retryableConflict(inUse(input.key));
    if (existing.fingerprint !== input.fingerprint) {
      throw new ServiceError(
        "validation",
        `Idempotency-Key '${input.key}' was already used for a different request; use a new key for a new request.`,
        { error_code: "idempotency_key_reused" },
      );
    }
    if (existing.state === "in_progress") {
      if (existing.created.getTime() > now.getTime() - IDEMPOTENCY_LEASE_MS) throw retryableConflict(inUse(input.key));
      // Its request died before answering (and, having committed nothing, changed nothing): run it now.
      await tx.update(idempotencyKeys).set({ created: now }).where(mine);
      return { kind: "new" };
    }
    return { kind: "replay", status: existing.responseStatus!, body: existing.responseBody! };
  });
}

function inUse(key: string) {
  return {
    errorCode: "idempotency_key_in_use",
    title: "Idempotency Key In Use",
    detail: `A request with Idempotency-Key '${key}' is still being processed; retry once it has finished.`,
  };
}

/**
 * Stores the answer to replay for later requests with the key, without the secrets it may show
 * (an API token's `token`, an endpoint's signing `secret`): those are shown once, in the first answer.
 */
export async function completeIdempotencyKey(input: Key & { status: number; body: string }): Promise<void> {
  const db = await getDb();
  await db
    .update(idempotencyKeys)
    .set({ state: "completed", responseStatus: input.status, responseBody: redactSecrets(input.body) })
    .where(and(eq(idempotencyKeys.accountId, input.accountId), eq(idempotencyKeys.key, input.key)));
}

/** Forgets the key after an unexpected failure, so that a retry can run the request again. */
export async function releaseIdempotencyKey(input: Key): Promise<void> {
  const db = await getDb();
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.accountId, input.accountId),
        eq(idempotencyKeys.key, input.key),
        eq(idempotencyKeys.state, "in_progress"),
      ),
    );
}

const SECRET_FIELDS = ["token", "secret"] as const;
export const REDACTED_SECRET = "[redacted: shown once, in the first response to this Idempotency-Key]";

/**
 * The answer as it is stored for replays: one-time secrets replaced by REDACTED_SECRET (top-level
 * `token` and `secret` strings, and a portal session's `url`, the link that opens the portal), and
 * every other string through the one scanner (lib/log.ts), so no secret a request or a response
 * carried is kept. A replay therefore answers the object without its secret and mints nothing new
 * (docs/security.md, "What is stored").
 */
export function redactSecrets(body: string): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return redactText(body);
  }
  const scanned = scannedStrings(value);
  if (scanned === null || typeof scanned !== "object" || Array.isArray(scanned)) return JSON.stringify(scanned);
  const record = scanned as Record<string, unknown>;
  for (const field of SECRET_FIELDS) if (typeof record[field] === "string") record[field] = REDACTED_SECRET;
  if (record.object === "portal_session" && typeof record.url === "string") record.url = REDACTED_SECRET;
  return JSON.stringify(record);
}

function scannedStrings(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(scannedStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scannedStrings(inner)]));
  }
  return value;
}

/**
 * The key as stored: as sent, unless it holds a secret (a client that used its token as the key),
 * then its SHA-256, which still finds the same row on a retry.
 */
export function storedKey(key: string): string {
  return holdsSecret(key) ? `sha256:${createHash("sha256").update(key).digest("hex")}` : key;
}
