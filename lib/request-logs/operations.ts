import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { RequestLogDetail, RequestLogList, RequestLogListQuery } from "./schema";

const tag = "Request logs";

export const listRequestLogsOperation = defineOperation({
  operationId: "listRequestLogs",
  method: "GET",
  path: "/{account_id}/request-logs",
  unscopedPath: "/request-logs",
  summary: "List API requests",
  description:
    "Every /api request of the account, newest first, as the request log recorded it (written in batches: a request " +
    "appears within about a second). Filters combine; page with `starting_after`, or poll for newer requests with " +
    "`ending_before` (what `npm run logs` does). Secret tokens and dashboard sessions only. Successful reads of the " +
    "request log are not recorded in it (its failures are).",
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  requestLog: "errors",
  query: RequestLogListQuery,
  response: { status: 200, description: "A page of requests.", schema: RequestLogList },
});

export const getRequestLogOperation = defineOperation({
  operationId: "getRequestLog",
  method: "GET",
  path: "/{account_id}/request-logs/{request_id}",
  unscopedPath: "/request-logs/{request_id}",
  summary: "Retrieve an API request",
  description:
    "One request by its id (the `request_id` of an error body, the `X-Request-Id` header), with its redacted " +
    "headers and, for a 4xx or 5xx, its redacted bodies, and the events it caused.",
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  requestLog: "errors",
  response: { status: 200, description: "The request.", schema: RequestLogDetail },
  errors: [404],
});

export const requestLogOperations = [listRequestLogsOperation, getRequestLogOperation];
