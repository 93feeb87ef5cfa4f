import { isRedactedFieldName, LOG_REDACTION, redactText, redactValue } from "@/lib/log";

/**
 * What the request log stores of a request, redacted with the logs' own redaction (lib/log.ts:
 * the same field names, the secret values and card numbers wherever they appear). See
 * docs/security.md, "The request log".
 */

/** Each stored body is cut to this many bytes (UTF-8), after redaction. */
export const MAX_STORED_BODY_BYTES = 16 * 1024;

/** The request headers a reader needs; never Authorization or Cookie (the token's id is its own column). */
const KEPT_HEADERS = ["content-type", "content-length", "accept", "user-agent", "idempotency-key", "x-correlation-id", "origin", "referer"];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text PostgreSQL can store: no NUL, no unpaired surrogate (both replaced by U+FFFD). */
export function storableText(text: string): string {
  return text.replace(/\u0000/g, "\ufffd").replace(LONE_SURROGATE, "\ufffd");
}

function capped(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= MAX_STORED_BODY_BYTES) return text;
  // A cut through a multi-byte character decodes to U+FFFD, never to a broken string.
  return `${bytes.subarray(0, MAX_STORED_BODY_BYTES).toString("utf8")}…[truncated]`;
}

/** A body: JSON redacted field by field, anything else as text with its secret values censored; then capped. */
export function redactedBody(raw: string): string {
  let redacted: string;
  try {
    redacted = JSON.stringify(redactValue(JSON.parse(raw)));
  } catch {
    redacted = redactText(raw);
  }
  return capped(storableText(redacted));
}

/** A query string (with its `?`) without it, each redacted field's value censored, secrets censored in the others. */
export function redactedQuery(search: string): string {
  const params = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const [key, value] of params) {
    kept.append(redactText(key), isRedactedFieldName(key) ? LOG_REDACTION.censor : redactText(value));
  }
  return storableText(kept.toString()).slice(0, 2048);
}

export function redactedHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers.get(name);
    if (value !== null) kept[name] = storableText(redactText(value)).slice(0, 512);
  }
  return kept;
}
