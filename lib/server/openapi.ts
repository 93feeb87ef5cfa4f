import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import type { Operation } from "@/lib/api/operation";
import { permissionName } from "@/lib/permissions";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { eventWebhooks, webhookEventComponents } from "@/lib/events-api/webhooks-document";

import { ROLES } from "@/lib/auth/roles";

export { API_OPERATIONS };

const Problem = z
  .object({
    type: z.string().meta({ example: "about:blank" }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().meta({ description: "Request path." }),
    request_id: z.string().meta({ description: "Identifier for support, prefix `req_`." }),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: "Field-level problems (400 for parameters and missing fields, 422 otherwise)." }),
    error_code: z.string().optional().meta({ description: "Set on retryable conflicts (409)." }),
    retryable: z.boolean().optional(),
    invoice_id: z.string().optional().meta({ description: "With `invoice_locked`: the invoice being modified." }),
    subscription_id: z.string().nullable().optional().meta({ description: "With `invoice_locked`: its subscription." }),
    change_request_id: z.string().optional().meta({ description: "With `PARTIAL_APPLY_RETRYABLE`: the change request to apply again." }),
    payment_intent: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "With a change request's declined payment (409): the payment intent of its proration invoice." }),
    role: z.enum(ROLES).optional().meta({ description: "With a dashboard role's refusal (403): the role held." }),
    required_role: z.enum(ROLES).optional().meta({ description: "With a dashboard role's refusal (403): the least role the operation needs." }),
    required_permission: z
      .string()
      .optional()
      .meta({ description: "With a restricted key's refusal (403): the permission the operation needs, e.g. `invoices:write`." }),
    expired_at: z.string().optional().meta({ description: "With an expired token (401): when it expired." }),
    replacement: z.string().optional().meta({ description: "With a retired operation (410): the operation to use instead." }),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details, sent as application/problem+json." });

const IdempotencyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        "Makes the request safe to retry for 24 h: a repeat with the same key and request replays the first answer (`Idempotent-Replayed: true`); the same key with another request is a 422; while the first is running, a 409.",
    }),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Bad request: malformed JSON, invalid parameters, or a missing required field.",
  401: "Missing, invalid or revoked API token.",
  403: "The token may not call this operation or act on this account (a restricted key without the operation's permission: `required_permission`).",
  404: "No such object in this account.",
  409: "Conflict with the current state of the resource.",
  410: "The operation is retired; the body names the replacement.",
  415: "The body is not application/json.",
  422: "Validation error; `errors` lists the fields.",
  503: "Not ready: the database cannot be reached; retry after `Retry-After` seconds.",
};

const pathParameterNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

function pathParams(path: string) {
  const names = pathParameterNames(path);
  if (names.length === 0) return undefined;
  return z.object(
    Object.fromEntries(
      names.map((name) => [
        name,
        name === "account_id"
          ? z.string().meta({ description: "The account (`acc_…`); it must be the token's account." })
          : z.string(),
      ]),
    ),
  );
}

function toOpenApi(operation: Operation, path: string, operationId: string): ZodOpenApiOperationObject {
  const errorStatuses = [...new Set([400, 401, 403, ...(operation.errors ?? []), ...(operation.deprecated ? [410] : [])])];
  const params = pathParams(path);
  // docs/api.md, "Restricted keys": what a restricted key needs, per operation.
  const permission = operation.permission ? permissionName(operation.permission) : null;
  const description = [
    operation.description,
    permission ? `Restricted keys need \`${permission}\`.` : null,
  ].filter(Boolean).join("\n\n");
  return {
    operationId,
    summary: operation.summary,
    ...(description ? { description } : {}),
    ...(permission ? { "x-required-permission": permission } : {}),
    tags: [operation.tag],
    ...(operation.deprecated ? { deprecated: true } : {}),
    security: operation.access === "public" ? [] : operation.access === "dashboard" ? [{ dashboardSession: [] }] : [{ bearerAuth: [] }],
    requestParams: {
      ...(params ? { path: params } : {}),
      ...(operation.query ? { query: operation.query as z.ZodObject } : {}),
      ...(operation.method === "POST" && operation.access !== "public" ? { header: IdempotencyHeader } : {}),
    },
    ...(operation.body
      ? { requestBody: { required: true, content: { "application/json": { schema: operation.body } } } }
      : {}),
    responses: {
      [String(operation.response.status)]: {
        description: operation.response.description,
        content: operation.response.export
          ? { "text/csv": { schema: operation.response.schema }, "application/x-ndjson": { schema: operation.response.schema } }
          : { [operation.response.contentType ?? "application/json"]: { schema: operation.response.schema } },
      },
      ...Object.fromEntries(
        errorStatuses
          .sort()
          .map((status) => [
            String(status),
            { description: ERROR_DESCRIPTIONS[status] ?? "Error.", content: { "application/problem+json": { schema: Problem } } },
          ]),
      ),
    },
  };
}

export function openApiDocument(serverUrl = "/api") {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of API_OPERATIONS) {
    const method = operation.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    (paths[operation.path] ??= {})[method] = toOpenApi(operation, operation.path, operation.operationId);
    if (operation.unscopedPath) {
      (paths[operation.unscopedPath] ??= {})[method] = toOpenApi(
        operation,
        operation.unscopedPath,
        `${operation.operationId}ForTokenAccount`,
      );
    }
  }
  const document = createDocument({
    openapi: "3.1.0",
    info: {
      title: "Billing Service API",
      version: "1.0.0",
      description:
        "Subscription billing and payments. Authenticate with `Authorization: Bearer <token>`. Every error is an RFC 9457 problem with a `request_id`; every response carries `X-Request-Id`. Paths without an account segment act on the token's account.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Secret (`st_…`), restricted (`rk_…`, limited to its permissions: each operation's `x-required-permission`) or publishable (`pt_…`) token." },
        webhookSignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "Webhook deliveries (the document's `webhooks`) are signed with the endpoint's secret: verify `webhook-signature` over `webhook-id`, `webhook-timestamp` and the raw body (Standard Webhooks), or `X-Webhook-Signature` (docs/webhooks.md).",
        },
        dashboardSession: {
          type: "apiKey",
          in: "cookie",
          name: "next-auth.session-token",
          description: "A signed-in dashboard user (same-origin requests only).",
        },
      },
    },
    paths,
    webhooks: eventWebhooks(),
  });
  return withComponents(document, webhookEventComponents());
}

/**
 * Adds the webhooks' bodies and their union `WebhookEvent` (lib/events-api/webhooks-document.ts). A
 * component both define must be the same schema: anything else is a bug, not a merge.
 */
function withComponents<D extends ReturnType<typeof createDocument>>(document: D, extra: Record<string, unknown>): D {
  const schemas = (document.components!.schemas ??= {}) as Record<string, unknown>;
  for (const [name, schema] of Object.entries(extra)) {
    if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) {
      throw new Error(`The webhook events render the component ${name} differently from the API's operations.`);
    }
    schemas[name] = schema;
  }
  return document;
}
