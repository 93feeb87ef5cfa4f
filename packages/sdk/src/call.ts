import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./generated/schema.ts";
import { OPERATIONS } from "./generated/operations.ts";

/** Every operation of the API by its OpenAPI `operationId`. */
export type OperationId = keyof typeof OPERATIONS & keyof operations;
export type Problem = components["schemas"]["Problem"];

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;
type BodyOf<O> = O extends { requestBody: { content: { "application/json": infer B } } }
  ? { body: B }
  : O extends { requestBody?: { content: { "application/json": infer B } } }
    ? { body?: B }
    : { body?: never };

/** What a call takes: the operation's path and query parameters and its JSON body, as the document declares them. */
export type CallInput<Id extends OperationId> = Pick<operations[Id]["parameters"], "path" | "query"> &
  BodyOf<operations[Id]> & { headers?: Record<string, string>; signal?: AbortSignal };

/** The operation's success body (its 200 or 201 response). */
export type CallOutput<Id extends OperationId> = JsonOf<operations[Id]["responses"][keyof operations[Id]["responses"] & (200 | 201)]>;

export type CallResult<Id extends OperationId> =
  | { ok: true; status: number; data: CallOutput<Id>; response: Response }
  | { ok: false; status: number; problem: Problem; response: Response };

/** Inputs whose every member is optional may be left out. */
export type CallArgs<Id extends OperationId> = Partial<CallInput<Id>> extends CallInput<Id> ? [input?: CallInput<Id>] : [input: CallInput<Id>];

export type CallOptions = {
  /** The API's root, e.g. `https://billing.example.com/api` or `/api` in a browser. */
  baseUrl: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  credentials?: RequestCredentials;
};

export type Call = <Id extends OperationId>(operationId: Id, ...args: CallArgs<Id>) => Promise<CallResult<Id>>;

/**
 * One typed function for every operation: `call("getCustomer", { path: { customer_id } })`. The
 * method and path come from the generated operations list, the types from the generated schema,
 * the request from openapi-fetch, so no caller writes an API path by hand.
 */
export function createCall(options: CallOptions): Call {
  const client: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  return async (operationId, ...args) => {
    const { method, path } = OPERATIONS[operationId];
    const input = (args[0] ?? {}) as { path?: object; query?: object; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal };
    // The per-operation types are checked at the call site; openapi-fetch's own generics would
    // need the path as a literal, which a table lookup cannot give it.
    const request = client.request as (method: string, path: string, init: object) => ReturnType<Client<paths>["request"]>;
    const { data, error, response } = await request(method.toLowerCase(), path, {
      params: { path: input.path, query: input.query },
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.headers ? { headers: input.headers } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (response.ok) return { ok: true, status: response.status, data: data as CallOutput<typeof operationId>, response };
    return { ok: false, status: response.status, problem: (error ?? {}) as Problem, response };
  };
}
