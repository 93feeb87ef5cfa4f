"use client";

import { createCall, type CallArgs, type CallInput, type CallOutput, type OperationId } from "@/packages/sdk/src/call";

/** A problem body from the API (RFC 9457), thrown by dashboardCall for any non-2xx answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: { field: string; message: string }[]; request_id?: string },
  ) {
    super(problem.detail ?? problem.title ?? `Request failed with ${status}`);
    this.name = "ApiError";
  }

  /** The message for one field, for inline form errors. */
  fieldError(field: string): string | undefined {
    return this.problem.errors?.find((error) => error.field === field)?.message;
  }
}

// The dashboard calls the same REST API as merchants' servers, authenticated by the session
// cookie (same origin only). Method and path come from the generated operations list.
const call = createCall({ baseUrl: "/api", credentials: "same-origin" });

/**
 * One API operation by its `operationId`, typed from the OpenAPI document:
 * `dashboardCall("listEvents", { path: { account_id }, query: { limit: 5 } })`. Resolves with the
 * success body; throws ApiError with the problem for any non-2xx answer (React Query shows it).
 */
export async function dashboardCall<Id extends OperationId>(operationId: Id, ...args: CallArgs<Id>): Promise<CallOutput<Id>> {
  const result = await call(operationId, ...args);
  if (!result.ok) throw new ApiError(result.status, result.problem);
  return result.data;
}

export type { CallInput, CallOutput, OperationId };

/**
 * A form's call: the body is what a person typed, sent as is (an amount that does not read as a
 * number, an empty required field), for the API to refuse beside its field. So the body is not
 * held to the operation's type here; the path and query parameters and the answer are.
 */
export function dashboardSubmit<Id extends OperationId>(operationId: Id, params: Omit<CallInput<Id>, "body">, body: unknown): Promise<CallOutput<Id>> {
  const args = [{ ...params, body }] as unknown as CallArgs<Id>;
  return dashboardCall(operationId, ...args);
}
