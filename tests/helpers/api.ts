import { request as httpRequest, type ClientRequest } from "node:http";
import { inject } from "vitest";
import { apiRoot, createApiClient } from "./api-client";

export { apiRoot, createApiClient, type AccountPath, type ApiPath, type ApiResponse, type Client, type Json, type Query, type RequestOptions } from "./api-client";

export function apiBaseUrl(): string {
  return apiRoot(inject("apiBaseUrl"));
}

/** The typed, contract-checked client (tests/helpers/api-client.ts) against the api project's server by default. */
export function api(token?: string, baseUrl?: string) {
  return createApiClient(baseUrl ?? apiBaseUrl(), token);
}

/** A `POST /customers` whose body the caller writes in chunks (the body-limit tests). */
export function chunkedCustomerPost(apiBase: string, token: string): ClientRequest {
  const base = new URL(`${apiBase}/customers`);
  return httpRequest({
    host: base.hostname,
    port: base.port,
    method: "POST",
    path: base.pathname,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
  });
}

export { statusOf } from "./status";
