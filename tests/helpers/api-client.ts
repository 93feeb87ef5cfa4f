import type { paths } from "@/packages/sdk/src/generated/schema";
import { checkOffContractResponse, checkResponse } from "./api-contract";

/**
 * The API tests' HTTP client, free of vitest (the e2e specs import it too; tests/helpers/api.ts
 * adds the vitest default base URL). Paths are typed from the generated OpenAPI types, and every
 * response is validated against the document (tests/helpers/api-contract.ts). A request that
 * deliberately leaves the contract (unknown path, wrong method, raw body, hostile input) goes
 * through `client.offContract`, which still holds a problem body to `Problem`.
 */

// Responses are arbitrary JSON that each test inspects field by field, error bodies included.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export type ApiResponse = { status: number; headers: Headers; body: Json; text: string };

export type RequestOptions = {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
};

type Method = "get" | "post" | "put" | "delete";

/** `/{account_id}/customers/{customer_id}` → `/${string}/customers/${string}`. */
type Templated<P extends string> = P extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Templated<Tail>}` : P;
type DocumentPath<M extends Method> = {
  [P in keyof paths]: [paths[P][M]] extends [undefined] ? never : P;
}[keyof paths];

/** A path of the document that serves `M`, with its parameters filled in and an optional query. */
export type ApiPath<M extends Method> = Templated<DocumentPath<M>> | `${Templated<DocumentPath<M>>}${Query}`;

/** A query string to append to a path: empty or `?…`. */
export type Query = "" | `?${string}`;

/** What follows `/{account_id}` in a scoped path (`/customers/${string}`), for helpers that prefix the account. */
export type AccountPath<M extends Method> = Templated<AfterAccount<DocumentPath<M>>> | `${Templated<AfterAccount<DocumentPath<M>>>}${Query}`;
type AfterAccount<P extends string> = P extends `/{account_id}${infer Rest}` ? Rest : never;

/** The API root of an app served at `origin`: every API path of the document is relative to it. */
export const apiRoot = (origin: string): string => `${origin}/api`;

async function send(baseUrl: string, token: string | undefined, method: string, path: string, options: RequestOptions) {
  const headers: Record<string, string> = { ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    body,
    redirect: "manual",
  });
  const text = await response.text();
  let json: Json = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body: json, text } satisfies ApiResponse;
}

/**
 * A client over real HTTP against `baseUrl` (the API root: `apiRoot(origin)`), authenticated with
 * `token` when given, sending `defaultHeaders` (a session cookie, an Origin) with every request. A response that does not match the document throws a ContractViolation.
 */
export function createApiClient(baseUrl: string, token?: string, defaultHeaders: Record<string, string> = {}) {
  const withDefaults = (options: RequestOptions): RequestOptions => ({ ...options, headers: { ...defaultHeaders, ...options.headers } });
  async function checked(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const response = await send(baseUrl, token, method, path, withDefaults(options));
    checkResponse({ method, path, ...response });
    return response;
  }
  async function offContract(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const response = await send(baseUrl, token, method, path, withDefaults(options));
    checkOffContractResponse({ method, path, ...response });
    return response;
  }
  return {
    request: <M extends Method>(method: Uppercase<M>, path: ApiPath<M>, options?: RequestOptions) => checked(method, path, options),
    get: (path: ApiPath<"get">, options?: RequestOptions) => checked("GET", path, options),
    post: (path: ApiPath<"post">, body?: unknown, options?: RequestOptions) => checked("POST", path, { ...options, body }),
    delete: (path: ApiPath<"delete">, options?: RequestOptions) => checked("DELETE", path, options),
    /** For requests that deliberately leave the document: any method, any path. */
    offContract: {
      request: (method: string, path: string, options?: RequestOptions) => offContract(method, path, options),
      get: (path: string, options?: RequestOptions) => offContract("GET", path, options),
      post: (path: string, body?: unknown, options?: RequestOptions) => offContract("POST", path, { ...options, body }),
      delete: (path: string, options?: RequestOptions) => offContract("DELETE", path, options),
    },
  };
}

export type Client = ReturnType<typeof createApiClient>;
