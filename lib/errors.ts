/**
 * Errors the domain raises. Services in lib/ throw these; the HTTP layer (lib/api) alone decides
 * how they look on the wire (status, problem body). A `code` is a stable category, not a status.
 */
export type ErrorCategory =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "gone"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation"
  | "rate_limited"
  | "unavailable";

export type FieldError = { field: string; message: string };

export class ServiceError extends Error {
  constructor(
    readonly category: ErrorCategory,
    message: string,
    /** Extra members of the problem body, e.g. `errors`, `error_code`, `retryable`. */
    readonly extras: Record<string, unknown> = {},
    /** A title other than the status's standard one (the spec's "Invoice Locked"). */
    readonly title?: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const notFound = (what: string, id: string) => new ServiceError("not_found", `No such ${what}: '${id}'.`);

export const validationFailed = (errors: FieldError[], message?: string) =>
  new ServiceError("validation", message ?? errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });

/**
 * A 409 that names a conflicting operation in progress: the request was valid, changed nothing,
 * and the identical request succeeds later (spec: Retryable conflicts). Also the change-request
 * apply's `PARTIAL_APPLY_RETRYABLE`, raised after some work was done: a retry resumes it.
 */
export function retryableConflict(input: {
  errorCode: string;
  title: string;
  detail: string;
  /** Named ids; null says the id does not exist (yet), e.g. an invoice without subscription. */
  fields?: Record<string, string | null>;
}): ServiceError {
  return new ServiceError(
    "conflict",
    input.detail,
    { error_code: input.errorCode, retryable: true, ...input.fields },
    input.title,
  );
}
