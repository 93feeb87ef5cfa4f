import type { z } from "zod";
import { serializeEvent } from "@/lib/events-api/serialize";
import type { RequestLog, RequestLogDetail, RequestSource } from "./schema";
import type { CausedEventRow, RequestLogRow } from "./service";

/** A session's request is the dashboard's (it has a user); a token's or an anonymous one is an API client's. */
export function sourceOf(row: Pick<RequestLogRow, "userId">): RequestSource {
  return row.userId === null ? "api" : "dashboard";
}

export function serializeRequestLog(row: RequestLogRow): z.input<typeof RequestLog> {
  return {
    id: row.id,
    object: "request_log",
    created: row.created.toISOString(),
    livemode: row.livemode,
    method: row.method,
    path: row.path,
    query: row.query,
    operation_id: row.operationId,
    status: row.status,
    error_code: row.errorCode,
    duration_ms: row.durationMs,
    token_id: row.tokenId,
    user_id: row.userId,
    source: sourceOf(row),
    client_address: row.clientAddress,
    user_agent: row.userAgent,
    idempotency_key: row.idempotencyKey,
    idempotent_replayed: row.idempotentReplayed,
  };
}

export function serializeRequestLogDetail(row: RequestLogRow, caused: CausedEventRow[]): z.input<typeof RequestLogDetail> {
  return {
    ...serializeRequestLog(row),
    request_headers: row.requestHeaders,
    request_body: row.requestBody,
    response_body: row.responseBody,
    events: caused.map(serializeEvent) as z.input<typeof RequestLogDetail>["events"],
  };
}
