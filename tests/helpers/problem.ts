import { expect } from "vitest";
import type { ApiResponse } from "./api";

/** Asserts the spec's problem body: every field, the content type, and the request id header. */
export function expectProblem(response: ApiResponse, status: number, detail?: RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.body).toMatchObject({
    type: "about:blank",
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.stringMatching(/^\/api\//),
    request_id: expect.stringMatching(/^req_prod_[0-9a-z]{29}$/),
  });
  expect(response.headers.get("x-request-id")).toBe(response.body.request_id);
  if (detail) expect(response.body.detail).toMatch(detail);
}
