import { z } from "zod";
import { PaginationQuery } from "@/lib/api/pagination";
import { Event } from "@/lib/events-api/schema";
import { DateTime } from "@/lib/schemas";

/** Who sent a request: the dashboard (a user's session) or an API client (a token, or nothing). */
export const REQUEST_SOURCES = ["api", "dashboard"] as const;
export type RequestSource = (typeof REQUEST_SOURCES)[number];

const REQUEST_ID = /^req_[a-z]+_[0-9a-hjkmnp-tv-z]{29}$/;

const RequestLogFields = {
  id: z.string().meta({ description: "The request's id (`req_…`): its `X-Request-Id`, the `request_id` of its error body and of the events it caused." }),
  object: z.literal("request_log"),
  created: DateTime.meta({ description: "When the request arrived." }),
  livemode: z.boolean().nullable(),
  method: z.string(),
  path: z.string().meta({ description: "The URL path, without the query string." }),
  query: z.string().nullable().meta({ description: "The query string (without `?`), redacted; null when there was none." }),
  operation_id: z.string().nullable().meta({ description: "The operation the path and method named; null for an unknown path." }),
  status: z.number().int(),
  error_code: z.string().nullable().meta({ description: "A 4xx/5xx's `error_code`, else its title in snake case (`not_found`); null on success." }),
  duration_ms: z.number().int().meta({ description: "Time spent in the API, from the request's arrival to its answer." }),
  token_id: z.string().nullable().meta({ description: "The API token's id (`key_…`); null for a dashboard session." }),
  user_id: z.string().nullable().meta({ description: "The dashboard user, for a session's request." }),
  source: z.enum(REQUEST_SOURCES).meta({
    description: "Who sent it: `dashboard` (a signed-in user's session, the dashboard's own calls) or `api` (an API token, or no credentials).",
  }),
  client_address: z.string().nullable(),
  user_agent: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  idempotent_replayed: z.boolean().meta({ description: "Whether the answer was a replay (`Idempotent-Replayed: true`)." }),
};

export const RequestLog = z.object(RequestLogFields).meta({
  id: "RequestLog",
  description: "One API request as the request log recorded it (docs/request-logs.md).",
});

export const RequestLogDetail = z
  .object({
    ...RequestLogFields,
    request_headers: z.record(z.string(), z.string()).meta({
      description: "The headers that matter (content type, user agent, idempotency key, correlation id, origin…), redacted. Never Authorization or Cookie.",
    }),
    request_body: z.string().nullable().meta({
      description: "4xx/5xx only: the body as the API read it, redacted, at most 16 KB; null on success or when the request was refused before its body was read.",
    }),
    response_body: z.string().nullable().meta({ description: "4xx/5xx only: the problem body, redacted, at most 16 KB." }),
    events: z.array(Event).meta({ description: "The events the request caused (their `request_id` is this id), oldest first." }),
  })
  .meta({ id: "RequestLogDetail" });

export const RequestLogList = z
  .object({
    items: z.array(RequestLog),
    has_more: z.boolean().meta({
      description: "Whether more requests follow in the paging direction (older ones; with `ending_before`, newer ones).",
    }),
  })
  .meta({
    id: "RequestLogList",
    description: "A page of the request log, newest first. No `total`: the log is millions of rows; page with the cursors.",
  });

const text = (description: string, max = 255) => z.string().min(1).max(max).optional().meta({ description });

const requestIdParam = (description: string) =>
  z.string().regex(REQUEST_ID, "Must be a request id (req_…).").optional().meta({ description });

export const RequestLogListQuery = PaginationQuery.pick({ limit: true, "created[gte]": true, "created[lt]": true }).extend({
  starting_after: requestIdParam("Cursor: a request id; the requests older than it (it need not be in the filtered list)."),
  ending_before: requestIdParam("Cursor: a request id; the requests newer than it, still newest first (what a tail polls with)."),
  status: z
    .string()
    .regex(/^[1-5](\d\d|xx)$/, "Must be a status code (404) or a class (4xx, 5xx).")
    .optional()
    .meta({ description: "An exact status (`404`) or a class (`2xx`, `4xx`, `5xx`)." }),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).optional().meta({ description: "The HTTP method." }),
  operation: text("An operation id, e.g. `createCustomer`.", 100),
  path: z.string().startsWith("/", "Must start with /.").max(500).optional().meta({ description: "A prefix of the URL path as the request sent it, API root included (the `path` field of the items)." }),
  token: text("An API token's id (`key_…`)."),
  source: z
    .enum(REQUEST_SOURCES, { error: `Must be one of ${REQUEST_SOURCES.join(", ")}.` })
    .optional()
    .meta({ description: "`dashboard`: the dashboard's own requests (a user's session); `api`: every other (API tokens, unauthenticated)." }),
  request_id: requestIdParam("One request, by its id."),
  idempotency_key: text("The requests sent with this `Idempotency-Key`."),
});

export type RequestLogListInput = z.output<typeof RequestLogListQuery>;
