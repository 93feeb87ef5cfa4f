import type { Problem } from "./call.ts";

/**
 * A non-2xx answer of the API, thrown by `billing.call`: the problem body (RFC 9457, the spec's
 * error body) with its fields at hand. `error_code` is set on retryable conflicts (`invoice_locked`
 * once the SDK's retries are spent); `errors` lists field-level problems of a 400/422.
 */
export class BillingError extends Error {
  override readonly name = "BillingError";
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: Problem["errors"];
  readonly requestId: string | undefined;
  readonly errorCode: string | undefined;
  /** The problem body as sent (an empty object when the answer had no JSON body). */
  readonly problem: Partial<Problem>;
  /** The last response (after retries). */
  readonly response: Response;

  constructor(status: number, problem: Partial<Problem>, response: Response) {
    super(`${status} ${problem.title ?? response.statusText}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.status = status;
    this.title = problem.title ?? response.statusText;
    this.detail = problem.detail ?? "";
    this.errors = problem.errors;
    this.requestId = problem.request_id ?? response.headers.get("X-Request-Id") ?? undefined;
    this.errorCode = problem.error_code;
    this.problem = problem;
    this.response = response;
  }
}

export function isBillingError(error: unknown): error is BillingError {
  return error instanceof BillingError;
}
