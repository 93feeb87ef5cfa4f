import type { z } from "zod";
import { ServiceError, validationFailed, type FieldError } from "@/lib/errors";

/** Requests larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;

function fieldName(path: readonly PropertyKey[]): string {
  return path.map(String).join(".");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ field: fieldName([...issue.path, key]), message: "Unknown field." }));
    }
    return [{ field: fieldName(issue.path) || "(body)", message: issue.message }];
  });
}

/**
 * Validates a JSON body. A missing required field is a 400 naming it (the spec's email rule);
 * every other problem is a 422 with the list of `{field, message}`.
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Whatever the check (a type, an enum's values, …), a field that is absent is missing.
  const missing = result.error.issues.filter(
    (issue) => issue.code !== "unrecognized_keys" && issue.path.length > 0 && valueAt(input, issue.path) === undefined,
  );
  if (missing.length > 0) {
    const names = missing.map((issue) => fieldName(issue.path));
    throw new ServiceError(
      "bad_request",
      `Missing required field${names.length > 1 ? "s" : ""}: ${names.join(", ")}.`,
      { errors: names.map((field) => ({ field, message: "Required." })) },
    );
  }
  throw validationFailed(fieldErrors(result.error));
}

/** Query strings and path parameters are "invalid parameters": always 400, with the list. */
export function parseParameters<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = fieldErrors(result.error);
  throw new ServiceError("bad_request", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * Reads the request body as JSON. An empty body stands for `{}` (operations without input);
 * a non-JSON content type is 415; unparseable JSON or a non-object is 400. Also returns the raw
 * text (the idempotency fingerprint is taken over the exact bytes).
 */
export async function readJsonObject(request: Request): Promise<{ raw: string; value: unknown }> {
  const declaredLength = Number(request.headers.get("content-length") ?? 0);
  if (declaredLength > MAX_BODY_BYTES) throw tooLarge();
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw tooLarge();

  const contentType = request.headers.get("content-type");
  if (contentType !== null) {
    const mediaType = contentType.split(";")[0]!.trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
      throw new ServiceError(
        "unsupported_media_type",
        `Content-Type '${mediaType}' is not supported; send 'application/json'.`,
      );
    }
  } else if (text.trim() !== "") {
    throw new ServiceError("unsupported_media_type", "Send the JSON body with 'Content-Type: application/json'.");
  }
  if (text.trim() === "") return { raw: text, value: {} };

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ServiceError("bad_request", `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ServiceError("bad_request", "The request body must be a JSON object.");
  }
  return { raw: text, value: parsed };
}

function tooLarge(): ServiceError {
  return new ServiceError("payload_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
}

/** Query string to a plain object; a repeated parameter becomes an array (and fails validation). */
export function queryObject(url: URL): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    result[key] = values.length === 1 ? values[0]! : values;
  }
  return result;
}
