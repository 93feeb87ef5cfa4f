/**
 * When to send a request again, and after how long. Retried: a 429, a 503 that carries
 * `Retry-After`, a 409 whose problem has `error_code` `invoice_locked` (nothing changed; the spec
 * asks for a retry after a short backoff), and a request that never got an answer (network error).
 * The wait is the server's `Retry-After` when it gives one, else a jittered exponential backoff. Every retry
 * re-sends the same request, Idempotency-Key included, so a POST is applied at most once.
 */
export type RetryOptions = {
  /** Retries after the first attempt (0 disables retries). Default 2. */
  maxRetries: number;
  /** The first backoff when the server gives no hint; doubled per retry, jittered. Default 1000 ms. */
  baseDelayMs: number;
  /** Backoffs never exceed this. Default 8000 ms. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned. Default 60 s. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

/** The wait before retry number `retry` (0-based) of `response`, or null when it is not retried. */
export async function retryDelay(response: Response, retry: number, options: RetryOptions): Promise<number | null> {
  if (retry >= options.maxRetries) return null;
  const hint = retryAfterMs(response.headers.get("Retry-After"));
  const retried =
    response.status === 429 ||
    (response.status === 503 && hint !== null) ||
    (response.status === 409 && (await errorCodeOf(response)) === "invoice_locked");
  if (!retried) return null;
  if (hint === null) return backoff(retry, options);
  return hint <= options.maxRetryAfterMs ? hint : null;
}

/** Exponential backoff with jitter: a random wait in [½, 1] of base·2^retry, capped. */
export function backoff(retry: number, options: RetryOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

async function errorCodeOf(response: Response): Promise<unknown> {
  try {
    const body: unknown = await response.clone().json();
    return typeof body === "object" && body !== null && "error_code" in body ? body.error_code : undefined;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
