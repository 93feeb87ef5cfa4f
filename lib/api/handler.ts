import { z } from "zod";
import { sessionFromRequest } from "@/lib/auth/session";
import { authenticateToken, type Principal } from "@/lib/auth/tokens";
import { findAccount, findOrganizationAccount } from "@/lib/auth/users";
import { accountClock } from "@/lib/time";
import { isPlatformOrganization } from "@/lib/auth/platform-ids";
import { assertRoleAllows, requiredRole } from "@/lib/auth/roles";
import type { Actor, ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { runIdempotently } from "@/lib/idempotency/request";
import { requestFingerprint } from "@/lib/idempotency/service";
import { isId, newId } from "@/lib/ids";
import { isDatabaseUnavailable } from "@/db/errors";
import { log, redactText, safeError } from "@/lib/log";
import { applyDeprecation } from "./deprecation";
import { acceptsGzip, CONTENT_ENCODING_HEADER, gzipped, type ExportBody } from "./export-body";
import { recordRequest } from "@/lib/request-recorder/record";
import { addressOf, rateLimited } from "./rate-limit";
import type { Access, HttpMethod, Operation, PathParams } from "./operation";
import { grants, permissionName } from "@/lib/permissions";
import { internalErrorBody, problemBody, problemResponse } from "./problem";
import { unavailableResponse } from "./unavailable";
import { assertStorableParams, parseBody, parseParameters, queryObject, readJsonObject } from "./validation";

/** The second argument Next.js passes to a route handler. */
export type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response>;
/** A route handler that knows its operation: one entry of a domain's list in `lib/<domain>/handlers.ts`. */
export type OperationHandler = RouteHandler & { readonly operation: Operation };

type Authenticated<A extends Access, T> = A extends "public" ? null : T;

export type HandlerArgs<Q, B, A extends Access, P extends string> = {
  ctx: Authenticated<A, ServiceContext>;
  /** The path's parameters except `account_id`, which may be absent on the unscoped path. */
  params: Record<Exclude<PathParams<P>, "account_id">, string>;
  query: Q extends z.ZodType ? z.output<Q> : Record<string, never>;
  body: B extends z.ZodType ? z.output<B> : undefined;
  request: Request;
  /** This request's `req_…` id (its request log row, its events' `request_id`). */
  requestId: string;
};

const NO_QUERY = z.strictObject({});
const CORRELATION_ID = /^[\x21-\x7e]{1,200}$/;
const EXPOSED_HEADERS = "X-Request-Id, Deprecation, Sunset, Link, Idempotent-Replayed, RateLimit, RateLimit-Policy, Retry-After";

function baseHeaders(requestId: string): Headers {
  return new Headers({
    "X-Request-Id": requestId,
    "Cache-Control": "no-store",
    // Bearer tokens are never ambient credentials, so any origin may call (as Stripe.js does).
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": EXPOSED_HEADERS,
  });
}

/** The path, as problems show it and the log prints it: a secret a client put in it is censored. */
function instanceOf(request: Request): string {
  return redactText(new URL(request.url).pathname);
}

/** The one place where a failure becomes a response. */
export function errorResponse(error: unknown, requestId: string, instance: string, headers: Headers): Response {
  if (error instanceof ServiceError) {
    if (error.category === "unauthorized") headers.set("WWW-Authenticate", 'Bearer realm="api"');
    return problemResponse(problemBody(error, requestId, instance), headers);
  }
  if (isDatabaseUnavailable(error)) {
    // Which bound gave up (the pool's queue, the watchdog, a refused connection) is what an
    // operator needs to tell an overloaded database from an unreachable one.
    log().warn({ request_id: requestId, instance, err: safeError(error) }, "database unavailable; answered 503");
    return unavailableResponse(requestId, instance, headers);
  }
  log().error({ request_id: requestId, instance, err: safeError(error) }, "unhandled error");
  return problemResponse(internalErrorBody(requestId, instance), headers);
}

function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) {
    throw new ServiceError("unauthorized", "Missing API token. Send 'Authorization: Bearer <token>'.");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ServiceError("unauthorized", "The Authorization header must be 'Bearer <token>'.");
  return match[1]!;
}

function authorizeToken(operation: Operation, principal: Principal, accountId: string | undefined): void {
  if (operation.access === "operator") {
    if (principal.kind !== "secret" || !isPlatformOrganization(principal.organizationId)) {
      throw new ServiceError("forbidden", "Only platform operators (secret tokens of the platform organization) may call this operation.");
    }
    return;
  }
  if (accountId !== undefined && accountId !== principal.accountId) {
    throw new ServiceError("forbidden", `This token cannot access account '${accountId}'.`);
  }
  if (operation.access === "dashboard") {
    throw new ServiceError("forbidden", "API tokens are managed in the dashboard, not with API tokens.");
  }
  if (operation.access === "secret" && principal.kind === "publishable") {
    throw new ServiceError(
      "forbidden",
      "Publishable tokens cannot call this operation; call it from your server with a secret token (st_…).",
    );
  }
  if (principal.permissions !== null) {
    // A restricted key: the operation's declared permission, which its grants must name.
    const required = operation.permission;
    if (!required) {
      throw new ServiceError("forbidden", `Restricted keys cannot call ${operation.operationId}: it declares no permission.`);
    }
    if (!grants(principal.permissions, required)) {
      const name = permissionName(required);
      throw new ServiceError(
        "forbidden",
        `This restricted key lacks the permission '${name}' that ${operation.operationId} needs; its level on '${required.resource}' is ${principal.permissions[required.resource] ?? "none"}.`,
        { required_permission: name, error_code: "permission_denied" },
      );
    }
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Cookie-authenticated changes must come from the dashboard's own pages: the Origin header must
 * name this host (browsers always send it on cross-origin and on POST requests).
 */
function assertSameOrigin(request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  let originHost: string | null = null;
  try {
    originHost = origin ? new URL(origin).host : null;
  } catch {
    originHost = null;
  }
  if (!originHost || originHost !== host) {
    throw new ServiceError("forbidden", "Cross-site request refused: dashboard changes must come from the dashboard.");
  }
}

/** Bearer token, else dashboard session cookie: the context the operation runs in. */
async function authenticate(
  request: Request,
  operation: Operation,
  accountId: string | undefined,
  correlationId: string,
): Promise<ServiceContext> {
  if (!request.headers.get("authorization")) {
    const session = operation.access === "operator" ? null : await sessionFromRequest(request);
    if (session) {
      if (accountId === undefined) {
        throw new ServiceError("forbidden", "Dashboard sessions act on a named account: use /api/{account_id}/….");
      }
      const account = await findOrganizationAccount(session.organizationId, accountId);
      if (!account) throw new ServiceError("forbidden", `You cannot access account '${accountId}'.`);
      assertSameOrigin(request);
      // A dashboard user acts within their role (docs/teams.md); tokens have none.
      assertRoleAllows(session.role, requiredRole(operation));
      return { ...accountContext(account, { type: "user", id: session.userId }, correlationId), role: session.role };
    }
  }
  const principal = await authenticateToken(bearerToken(request), clientAddressOf(request));
  authorizeToken(operation, principal, accountId);
  if (operation.access === "operator" && accountId !== undefined) {
    // An operator acts on the account named by the path, as the operator's token.
    const account = await findAccount(accountId);
    if (!account) throw new ServiceError("not_found", `No such account: '${accountId}'.`);
    return accountContext(account, { type: "api_key", id: principal.tokenId, tokenKind: principal.kind }, correlationId);
  }
  const account = { id: principal.accountId, livemode: principal.livemode, clockOffsetMs: principal.clockOffsetMs };
  return accountContext(account, { type: "api_key", id: principal.tokenId, tokenKind: principal.kind }, correlationId);
}

/** The context an operation runs in on `account`: its mode, its clock, who acts. */
function accountContext(
  account: { id: string; livemode: boolean; clockOffsetMs: number },
  actor: Actor,
  correlationId: string,
): ServiceContext {
  return { accountId: account.id, livemode: account.livemode, actor, correlationId, now: accountClock(account.clockOffsetMs) };
}

function correlationIdOf(request: Request, requestId: string): string {
  const header = request.headers.get("x-correlation-id");
  if (header === null) return requestId;
  if (!CORRELATION_ID.test(header)) {
    throw new ServiceError("bad_request", "X-Correlation-Id must be 1 to 200 visible ASCII characters.");
  }
  // Events store it (`correlation_id`): a secret a client put in it is censored first.
  return redactText(header);
}

/** Audit events store the user agent (`metadata.user_agent`): through the one scanner. */
function redactOrNull(text: string | undefined): string | null {
  return text === undefined ? null : redactText(text);
}

function stringParams(raw: Record<string, string | string[] | undefined> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  // Next.js passes no params at all to routes without dynamic segments.
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (typeof value === "string") params[key] = value;
  }
  return params;
}

/**
 * Wraps a domain call into a route handler (which carries its operation): request id, deprecation, authentication,
 * authorization, parameter and body validation, serialization, and the only try/catch.
 */
export function handle<
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType,
  A extends Access,
  P extends string,
>(operation: Operation<Q, B, R, A, P>, run: (args: HandlerArgs<Q, B, A, P>) => Promise<z.input<R>>): OperationHandler {
  const handler: RouteHandler = async (request, context) => {
    const requestId = newId("request");
    const started = new Date();
    const startedMs = performance.now();
    // What the request log needs of the attempt, as far as it got (lib/request-logs).
    const seen: { ctx: ServiceContext | null; body: string | null } = { ctx: null, body: null };
    const response = await answer(request, context, requestId, seen);
    // Health probes are no account's requests: a load balancer's every few seconds would bury the log.
    if ((operation.requestLog === "errors" || operation.probe) && response.status < 400) return response;
    recordRequest({
      requestId,
      started,
      durationMs: performance.now() - startedMs,
      request,
      response,
      ctx: seen.ctx,
      operationId: operation.operationId,
      requestBody: seen.body,
      clientAddress: clientAddressOf(request),
    });
    return response;
  };
  const answer = async (
    request: Request,
    context: RouteContext,
    requestId: string,
    seen: { ctx: ServiceContext | null; body: string | null },
  ): Promise<Response> => {
    const headers = baseHeaders(requestId);
    try {
      if (operation.deprecated) applyDeprecation(operation.deprecated, headers);
      const correlationId = correlationIdOf(request, requestId);
      const params = stringParams(await context.params);
      assertStorableParams(params);
      // `/api/{anything}/customers` only names an operation when the segment is an account id.
      if (params.account_id !== undefined && !isId("account", params.account_id)) {
        throw new ServiceError("not_found", "No API operation exists at this path.");
      }

      const authenticated = await rateLimited(
        request,
        headers,
        operation.access === "public" ? null : () => authenticate(request, operation as Operation, params.account_id, correlationId),
        { probe: operation.probe === true },
      );
      const source = { clientAddress: clientAddressOf(request), userAgent: redactOrNull(request.headers.get("user-agent")?.slice(0, 512)) };
      const ctx = authenticated && { ...authenticated, requestId, source };
      seen.ctx = ctx;

      const url = new URL(request.url);
      const query = parseParameters(operation.query ?? NO_QUERY, queryObject(url));
      const payload = operation.body
        ? await readJsonObject(request, (text) => (seen.body = text))
        : { raw: "", value: undefined };
      const body = operation.body ? parseBody(operation.body, payload.value) : undefined;

      if (operation.response.export) {
        // A stream (GET only): its first batch is read before the answer starts, so a failure
        // until then is a problem answer; after that the body streams as the client reads it.
        const file = (await run({ ctx, params, query, body, request, requestId } as HandlerArgs<Q, B, A, P>)) as ExportBody;
        headers.set("Content-Type", file.contentType);
        headers.set("Content-Disposition", `attachment; filename="${file.filename}"`);
        headers.set("Vary", "Accept-Encoding");
        if (!acceptsGzip(request)) return new Response(file.stream, { status: operation.response.status, headers });
        headers.set(CONTENT_ENCODING_HEADER, "gzip");
        return new Response(gzipped(file.stream), { status: operation.response.status, headers });
      }
      const { contentType } = operation.response;
      if (contentType) {
        // A document (GET only): its bytes as they are, never replayed by idempotency.
        const bytes = (await run({ ctx, params, query, body, request } as HandlerArgs<Q, B, A, P>)) as Uint8Array;
        headers.set("Content-Type", contentType);
        return new Response(new Uint8Array(bytes), { status: operation.response.status, headers });
      }
      const execute = async () => {
        const result = await run({ ctx, params, query, body, request, requestId } as HandlerArgs<Q, B, A, P>);
        return { status: operation.response.status, body: JSON.stringify(result) };
      };
      const key = ctx && request.method === "POST" ? request.headers.get("idempotency-key") : null;
      const answer =
        key === null
          ? await execute()
          : await runIdempotently(
              { accountId: ctx!.accountId, key, fingerprint: requestFingerprint("POST", url.pathname + url.search, payload.raw) },
              execute,
              (error) => problemBody(error, requestId, instanceOf(request)),
              headers,
            );
      headers.set("Content-Type", answer.status >= 400 ? "application/problem+json" : "application/json");
      return new Response(answer.body, { status: answer.status, headers });
    } catch (error) {
      return errorResponse(error, requestId, instanceOf(request), headers);
    }
  };
  // The router serves the handler on the operation's paths (lib/api/router.ts).
  return Object.assign(handler, { operation: operation as unknown as Operation });
}

/** A handler that answers every request with the same error (404 for unknown paths, 405). */
export function failWith(error: () => ServiceError, extraHeaders: Record<string, string> = {}): RouteHandler {
  return async (request) => {
    const requestId = newId("request");
    const started = new Date();
    const headers = baseHeaders(requestId);
    for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
    const response = errorResponse(error(), requestId, instanceOf(request), headers);
    recordRequest({
      requestId,
      started,
      durationMs: Date.now() - started.getTime(),
      request,
      response,
      ctx: null,
      operationId: null,
      requestBody: null,
      clientAddress: clientAddressOf(request),
    });
    return response;
  };
}

/** The client's address as the HTTP guard left it (lib/http/guard.ts: the socket's, or the trusted proxy's hop). */
function clientAddressOf(request: Request): string | null {
  const address = addressOf({ "x-forwarded-for": request.headers.get("x-forwarded-for") ?? undefined });
  return address === "unknown" ? null : address;
}

export const METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
export type MethodExports = Record<HttpMethod | "OPTIONS", RouteHandler>;

/**
 * Every export a route file needs: the given methods, 405 problem for the others (never Next's
 * empty 405), and a CORS preflight answer.
 */
export function routeHandlers(handlers: Partial<Record<HttpMethod, RouteHandler>>): MethodExports {
  const allowed = [...METHODS.filter((method) => handlers[method]), "OPTIONS"].join(", ");
  const methodNotAllowed = failWith(
    () => new ServiceError("method_not_allowed", `This path supports ${allowed}.`),
    { Allow: allowed },
  );
  const exports = {} as MethodExports;
  for (const method of METHODS) exports[method] = handlers[method] ?? methodNotAllowed;
  exports.OPTIONS = async () =>
    new Response(null, {
      status: 204,
      headers: {
        Allow: allowed,
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": allowed,
        "Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key, X-Correlation-Id",
        "Access-Control-Max-Age": "600",
      },
    });
  return exports;
}
