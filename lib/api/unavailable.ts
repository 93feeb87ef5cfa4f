import { problemResponse } from "./problem";

/** Seconds a client should wait before retrying while the database is unavailable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** 503 with Retry-After: the database cannot be reached (or timed out); the request may be sent again. */
export function unavailableResponse(requestId: string, instance: string, headers: Headers): Response {
  headers.set("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  return problemResponse(
    {
      type: "about:blank",
      title: "Service Unavailable",
      status: 503,
      detail: `The database is unavailable. Retry in ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds (a POST with the same Idempotency-Key runs at most once).`,
      instance,
      request_id: requestId,
      error_code: "service_unavailable",
      retryable: true,
    },
    headers,
  );
}
