import { request as httpRequest, type ClientRequest } from "node:http";
import { inject } from "vitest";
import { createApiClient } from "./api-client";

export { createApiClient, type AccountPath, type ApiPath, type ApiResponse, type Client, type Json, type Query, type RequestOptions } from "./api-client";

export function apiBaseUrl(): string {
  return `${inject("apiBaseUrl")}/api`;
}

/** The typed, contract-checked client (tests/helpers/api-client.ts) against the api project's server by default. */
export function api(token?: string, baseUrl?: string) {
  return createApiClient(baseUrl ?? apiBaseUrl(), token);
}

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
