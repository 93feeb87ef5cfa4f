import type { ServiceContext } from "@/lib/context";
import { EMAIL_OPERATION_IDS } from "@/lib/email-outbox/types";
import { log, redactText, safeError } from "@/lib/log";
import { redactedBody, redactedHeaders, redactedQuery, storableText } from "./redact";
import { requestLogWriter } from "./writer";

/** What the request wrapper (lib/api/handler.ts) knows of a finished request. */
export type FinishedRequest = {
  requestId: string;
  started: Date;
  durationMs: number;
  request: Request;
  response: Response;
  ctx: ServiceContext | null;
  operationId: string | null;
  /** The body as the API read it; absent when the request was refused before (401, 404, 429…). */
  requestBody: string | null;
  clientAddress: string | null;
};

/** The problem body's `error_code` when it names one, else its title in snake case (`not_found`). */
function errorCodeOf(problem: unknown): string | null {
  if (problem === null || typeof problem !== "object") return null;
  const { error_code: code, title } = problem as { error_code?: unknown; title?: unknown };
  if (typeof code === "string") return code;
  if (typeof title === "string") return title.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
  return null;
}

function headerText(value: string | null, max: number): string | null {
  return value === null ? null : storableText(redactText(value)).slice(0, max);
}

async function buildRow(finished: FinishedRequest) {
  const { request, response, ctx } = finished;
  const url = new URL(request.url);
  const failed = response.status >= 400;
  const responseText = failed ? await response.clone().text() : null;
  let errorCode: string | null = null;
  if (responseText !== null) {
    try {
      errorCode = errorCodeOf(JSON.parse(responseText));
    } catch {
      errorCode = null;
    }
  }
  const actor = ctx?.actor;
  const withAddresses = finished.operationId !== null && EMAIL_OPERATION_IDS.has(finished.operationId);
  return {
    id: finished.requestId,
    created: finished.started,
    accountId: ctx?.accountId ?? null,
    livemode: ctx?.livemode ?? null,
    tokenId: actor?.type === "api_key" ? actor.id : null,
    userId: actor?.type === "user" ? actor.id : null,
    method: request.method,
    operationId: finished.operationId,
    path: storableText(redactText(url.pathname)),
    query: url.search ? redactedQuery(url.search) : null,
    status: response.status,
    statusClass: Math.floor(response.status / 100),
    errorCode,
    durationMs: Math.max(0, Math.round(finished.durationMs)),
    clientAddress: finished.clientAddress,
    userAgent: storableText(redactText(request.headers.get("user-agent") ?? "")).slice(0, 512) || null,
    idempotencyKey: headerText(request.headers.get("idempotency-key"), 255),
    idempotentReplayed: response.headers.get("idempotent-replayed") === "true",
    requestHeaders: redactedHeaders(request.headers),
    // Email operations carry customers' addresses and messages: never stored (docs/emails.md).
    requestBody: failed && finished.requestBody && !withAddresses ? redactedBody(finished.requestBody) : null,
    responseBody: responseText && !withAddresses ? redactedBody(responseText) : null,
  };
}

/**
 * Hands a finished request to the log's writer, off the request's path: the caller does not wait
 * (the error body is read from a clone of the response). Nothing here can fail the request.
 */
export function recordRequest(finished: FinishedRequest): void {
  const writer = requestLogWriter();
  if (!writer) return;
  buildRow(finished).then(
    (row) => writer.add(row),
    (error: unknown) => log().error({ request_id: finished.requestId, err: safeError(error) }, "request log: row not recorded"),
  );
}
