import { redactText } from "@/lib/log";
import { ServiceError, type ErrorCategory } from "@/lib/errors";

const STATUS: Record<ErrorCategory, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  // An upstream the request needs (a payment processor) failed or could not be reached: retry later.
  unavailable: 503,
};

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function statusOf(category: ErrorCategory): number {
  return STATUS[category];
}

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  request_id: string;
  [extra: string]: unknown;
};

/** An RFC 9457 problem body, as the spec's Error body describes it. */
export function problemBody(error: ServiceError, requestId: string, instance: string): ProblemBody {
  const status = statusOf(error.category);
  return {
    ...error.extras,
    type: "about:blank",
    title: error.title ?? TITLES[status] ?? "Error",
    status,
    // A client's input quoted back (an unknown id that was a token, a path holding one) is shown
    // and logged through the one scanner (lib/log.ts), as the request log stores it.
    detail: redactText(error.message),
    instance: redactText(instance),
    request_id: requestId,
  };
}

export function internalErrorBody(requestId: string, instance: string): ProblemBody {
  return {
    type: "about:blank",
    title: TITLES[500]!,
    status: 500,
    detail: `An unexpected error occurred. Contact support with the request id ${requestId}.`,
    instance: redactText(instance),
    request_id: requestId,
  };
}

export function problemResponse(body: ProblemBody, headers: Headers): Response {
  headers.set("Content-Type", "application/problem+json");
  return new Response(JSON.stringify(body), { status: body.status, headers });
}
