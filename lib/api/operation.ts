import type { z } from "zod";
import type { Role } from "@/lib/auth/roles";
import type { Permission } from "@/lib/permissions";

/** The names of a path's `{parameters}`, e.g. `"account_id" | "customer_id"`. */
export type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParams<Rest>
  : never;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call an operation. `secret`: secret tokens only. `publishable`: secret and publishable
 * tokens (the publishable allow-list is exactly the operations marked so). `dashboard`: only a
 * signed-in dashboard user (token management). `public`: anyone. A dashboard session may call
 * every operation but `public` ones need none, on the accounts of the user's organization, within
 * the user's role (`role` below, docs/teams.md).
 * `operator`: only secret tokens of the platform organization, on any account's path (the
 * operation then acts on that account); never a dashboard session or a merchant's token.
 */
export type Access = "secret" | "publishable" | "dashboard" | "public" | "operator";

/** DESIGN.md decision 14: a deprecated operation announces its sunset, then answers 410. */
export type Deprecation = {
  /** From this instant the operation answers 410 Gone. */
  sunset: Date;
  /** The replacement, e.g. `POST /api/{account_id}/subscription-change-requests`. */
  replacement: string;
  /** Absolute or root-relative link to the replacement's documentation, sent in `Link`. */
  link: string;
};

/**
 * One API operation: the single description that validation, authorization, the handler's types
 * and the OpenAPI document all read.
 */
export type Operation<
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
  P extends string = string,
> = {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path relative to `/api`, e.g. `/{account_id}/customers/{customer_id}`. */
  path: P;
  /** The same operation served without the account segment (acting on the token's account). */
  unscopedPath?: string;
  summary: string;
  description?: string;
  tag: string;
  access: A;
  /**
   * What a restricted key (`rk_…`) needs to call it, e.g. `needs("invoices", "write")`
   * (lib/permissions.ts; docs/api.md, "Restricted keys"): every `secret` and `publishable`
   * operation declares one (tests/unit/permissions.test.ts names any that does not). `public`,
   * `dashboard` and `operator` operations declare none: no restricted key can call them (public
   * ones need no token; dashboard and operator ones refuse every restricted key).
   */
  permission?: Permission;
  query?: Q;
  body?: B;
  /**
   * `contentType`: a document rather than JSON (the invoice PDF): the handler returns its bytes,
   * answered as they are with that type. `export`: a streamed export (lib/api/export.ts): the
   * handler returns an ExportBody, answered as `text/csv` or `application/x-ndjson` by its format.
   */
  response: { status: 200 | 201; description: string; schema: R; contentType?: "application/pdf"; export?: true };
  /** Error statuses worth documenting besides 400/401/403/500. */
  errors?: number[];
  deprecated?: Deprecation;
  /**
   * The least dashboard role a signed-in user needs (lib/auth/roles.ts `requiredRole`): unset,
   * a viewer for GET and an admin for changes. API tokens are not affected.
   */
  role?: Role;
  /** A health probe: rate limited in this process only, so that it never waits on the database. */
  probe?: true;
  /**
   * `errors`: the request log records this operation's 4xx/5xx only. The log's own reads: a
   * `logs` tail polling every second would otherwise fill the log with itself (docs/request-logs.md).
   */
  requestLog?: "errors";
};

export function defineOperation<
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
  A extends Access = Access,
  const P extends string = string,
>(operation: Operation<Q, B, R, A, P>): Operation<Q, B, R, A, P> {
  return operation;
}
