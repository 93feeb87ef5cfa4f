import type { z } from "zod";
import { ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, nestsDeeperThan } from "./limits";

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
 * a non-JSON content type is 415; unparseable JSON, nesting deeper than MAX_JSON_DEPTH or a
 * non-object is 400. Also returns the raw text (the idempotency fingerprint is taken over the
 * exact bytes).
 */
export async function readJsonObject(
  request: Request,
  /** Given the text as soon as it is read, before it is checked (the request log keeps a refused body). */
  onText?: (text: string) => void,
): Promise<{ raw: string; value: unknown }> {
  const declaredLength = Number(request.headers.get("content-length") ?? 0);
  if (declaredLength > MAX_BODY_BYTES) throw tooLarge();
  const text = await readLimited(request, MAX_BODY_BYTES);
  onText?.(text);

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
  // Checked on the text, before anything walks the value (zod, the string check below).
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ServiceError("bad_request", `The request body is nested more than ${MAX_JSON_DEPTH} levels deep (arrays and objects).`);
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ServiceError("bad_request", `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ServiceError("bad_request", "The request body must be a JSON object.");
  }
  assertStorableStrings(parsed);
  return { raw: text, value: parsed };
}

const UNSTORABLE_MESSAGE = "Contains a NUL character or an unpaired UTF-16 surrogate, which no field accepts.";
const UNSTORABLE_KEY_MESSAGE = "Has a key with a NUL character or an unpaired UTF-16 surrogate.";

// NUL, and a surrogate half without its other half: PostgreSQL cannot store either in text or
// jsonb, and neither is a character any client means to send.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string holds something no field of this API accepts (see UNSTORABLE). */
export function isUnstorable(text: string): boolean {
  return UNSTORABLE.test(text);
}

/**
 * Refuses NUL and lone surrogates anywhere in a JSON body (values and keys, in `metadata` and
 * `custom_fields` too) with a 422 naming each field, once for every operation rather than in
 * each schema. Iterative (an explicit stack), so no depth of nesting can overflow the call stack.
 */
export function assertStorableStrings(body: object): void {
  const errors: FieldError[] = [];
  // Each entry links to its parent's, so a field's name is built only when it is reported.
  type Entry = { value: unknown; key: string; parent: Entry | null };
  const nameOf = (entry: Entry): string => {
    const keys: string[] = [];
    for (let at: Entry | null = entry; at?.parent; at = at.parent) keys.push(at.key);
    return fieldName(keys.reverse()) || "(body)";
  };
  const pending: Entry[] = [{ value: body, key: "", parent: null }];
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const { value } = entry;
    if (typeof value === "string") {
      if (isUnstorable(value)) errors.push({ field: nameOf(entry), message: UNSTORABLE_MESSAGE });
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      // Pushed in reverse, so the errors come in document order.
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (isUnstorable(key)) errors.push({ field: nameOf(entry), message: UNSTORABLE_KEY_MESSAGE });
        else pending.push({ value: (value as Record<string, unknown>)[key], key, parent: entry });
      }
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * The body as text, counting bytes as they arrive and stopping at `limit` (chunked bodies carry
 * no Content-Length): a huge upload costs one chunk of memory, not its size.
 */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  // As Request.text() decodes (a BOM is dropped, invalid bytes become U+FFFD).
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

/** Path parameters holding NUL or a lone surrogate name nothing that exists: 404, not a 500 from the database. */
export function assertStorableParams(params: Record<string, string>): void {
  for (const value of Object.values(params)) {
    if (isUnstorable(value)) throw new ServiceError("not_found", "No API operation or object exists at this path.");
  }
}

function tooLarge(): ServiceError {
  return new ServiceError("payload_too_large", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
}

/** Query string to a plain object; a repeated parameter becomes an array (and fails validation). */
export function queryObject(url: URL): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    if (isUnstorable(key) || values.some(isUnstorable)) {
      const errors = [{ field: isUnstorable(key) ? "(query)" : key, message: UNSTORABLE_MESSAGE }];
      throw new ServiceError("bad_request", `${errors[0]!.field}: ${UNSTORABLE_MESSAGE}`, { errors });
    }
    result[key] = values.length === 1 ? values[0]! : values;
  }
  return result;
}
