import { request as httpRequest, type ClientRequest } from "node:http";
import { inject } from "vitest";

// Responses are arbitrary JSON that each test inspects field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export type ApiResponse = { status: number; headers: Headers; body: Json; text: string };

export type RequestOptions = {
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
};

export function apiBaseUrl(): string {
  return `${inject("apiBaseUrl")}/api`;
}

/** A small client over real HTTP, authenticated with `token` when given. */
export function api(token?: string, baseUrl?: string) {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(token ? { Authorization: `Bearer ${token}` } : {}) };
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    const response = await fetch(`${baseUrl ?? apiBaseUrl()}${path}`, {
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
    return { status: response.status, headers: response.headers, body: json, text };
  }
  return {
    request,
    get: (path: string, options?: RequestOptions) => request("GET", path, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => request("POST", path, { ...options, body }),
    delete: (path: string, options?: RequestOptions) => request("DELETE", path, options),
  };
}

export type Client = ReturnType<typeof api>;

/** A `POST /api/customers` whose body the caller writes in chunks (the body-limit tests). */
export function chunkedCustomerPost(baseUrl: string, token: string): ClientRequest {
  const base = new URL(baseUrl);
  return httpRequest({
    host: base.hostname,
    port: base.port,
    method: "POST",
    path: "/api/customers",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
  });
}
