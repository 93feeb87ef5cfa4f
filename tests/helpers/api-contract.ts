import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { compilePathMatcher, pathSegments, type PathMatcher } from "@/lib/api/path-match";
import { isSyntheticEvent } from "./synthetic";

/**
 * Checks API responses against the committed OpenAPI document (packages/sdk/openapi.json, made by
 * `npm run sdk:generate`): a 2xx against the operation's declared success response, a 4xx/5xx
 * against `Problem`. Each request's method and path resolve to an operation with the server's own
 * matching rule (lib/api/path-match.ts). Validators compile lazily, one per operation and status.
 * Free of vitest, so the e2e specs can use it too.
 */

type ResponseObject = { content?: Record<string, { schema?: object }> };
type OperationObject = { operationId: string; responses: Record<string, ResponseObject> };
type OpenApiDocument = { paths: Record<string, Record<string, OperationObject>>; components: object };

export type CheckedResponse = {
  method: string;
  /** Relative to the API root (`/customers?limit=2`), as the test wrote it. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
};

const DOCUMENT_ID = "https://billing.invalid/openapi.json";
const PROBLEM_TYPE = "application/problem+json";

type Contract = {
  match: PathMatcher<Record<string, OperationObject>>;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
};
let contract: Contract | undefined;
let validatedResponses = 0;

/** Responses validated since the last call (tests/setup/worker-env.ts reports them per test). */
export function takeValidatedResponseCount(): number {
  const count = validatedResponses;
  validatedResponses = 0;
  return count;
}

/** Every `$ref` made absolute, so a schema compiled on its own still reaches the document's components. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" && inner.startsWith("#") ? `${DOCUMENT_ID}${inner}` : absoluteRefs(inner),
    ]),
  );
}

function loadContract(): Contract {
  const document = JSON.parse(
    readFileSync(new URL("../../packages/sdk/openapi.json", import.meta.url), "utf8"),
  ) as OpenApiDocument;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and other annotations are not keywords Ajv knows.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: absoluteRefs(document.components) });
  const match = compilePathMatcher(Object.entries(document.paths));
  return { match, ajv, validators: new Map() };
}

function validatorFor(key: string, schema: object): ValidateFunction {
  contract ??= loadContract();
  let validate = contract.validators.get(key);
  if (!validate) {
    validate = contract.ajv.compile(absoluteRefs(schema) as object);
    contract.validators.set(key, validate);
  }
  return validate;
}

export class ContractViolation extends Error {
  override name = "ContractViolation";
}

function describe(response: CheckedResponse, operationId: string | undefined, problem: string, errors?: ErrorObject[] | null): string {
  const body = response.body as { request_id?: unknown } | undefined;
  const requestId = response.headers.get("x-request-id") ?? body?.request_id ?? "none";
  const lines = [
    `${operationId ?? "(no operation)"}: ${response.method} ${response.path} answered ${response.status} (request_id ${String(requestId)}): ${problem}`,
    ...(errors ?? []).map((error) => `  ${error.instancePath || "(body)"} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`),
    `  body: ${JSON.stringify(response.body)?.slice(0, 600) ?? "(not JSON)"}`,
    "  Fix the declaration (lib/<domain>/schemas or operations, then `npm run sdk:generate`) or the serializer;" +
      " a deliberately off-contract request goes through `client.offContract`.",
  ];
  return lines.join("\n");
}

/** The operation a request reaches, by the router's rule, or undefined when the document has no such path and method. */
export function resolveOperation(method: string, path: string): OperationObject | undefined {
  contract ??= loadContract();
  const pathname = path.split("?")[0]!;
  let segments: string[];
  try {
    segments = pathSegments(pathname).map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  return contract.match(segments)?.value[method.toLowerCase()];
}

// Synthetic events (./synthetic.ts) are left out here as the event check leaves them out; everything around them is validated.
const SKIP = Symbol("synthetic event");
function withoutSyntheticEvents(body: unknown): unknown {
  if (isSyntheticEvent(body)) return SKIP;
  if (typeof body !== "object" || body === null) return body;
  const { event, items } = body as { event?: unknown; items?: unknown };
  if (isSyntheticEvent(event)) return SKIP;
  if (Array.isArray(items) && items.some(isSyntheticEvent)) return { ...body, items: items.filter((item) => !isSyntheticEvent(item)) };
  return body;
}

function validate(response: CheckedResponse, key: string, schema: object, operationId: string | undefined): void {
  const body = withoutSyntheticEvents(response.body);
  if (body === SKIP) return;
  const check = validatorFor(key, schema);
  if (!check(body)) throw new ContractViolation(describe(response, operationId, "the body does not match its schema", check.errors));
  validatedResponses++;
}

const problemSchema = { $ref: "#/components/schemas/Problem" };

function checkProblem(response: CheckedResponse, operationId: string | undefined): void {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.startsWith(PROBLEM_TYPE)) {
    throw new ContractViolation(describe(response, operationId, `an error must be ${PROBLEM_TYPE}, not "${contentType}"`));
  }
  validate(response, "Problem", problemSchema, operationId);
}

/** Throws a ContractViolation when the response is not what the document declares for its operation. */
export function checkResponse(response: CheckedResponse): void {
  const operation = resolveOperation(response.method, response.path);
  if (!operation) throw new ContractViolation(describe(response, undefined, "the OpenAPI document has no such operation"));
  if (response.status >= 400) return checkProblem(response, operation.operationId);
  const declared = operation.responses[String(response.status)];
  if (!declared) throw new ContractViolation(describe(response, operation.operationId, "the operation declares no such status"));
  const media = declared.content?.["application/json"];
  if (!media?.schema) return;
  validate(response, `${operation.operationId} ${response.status}`, media.schema, operation.operationId);
}

/** What an off-contract response can still be held to: a problem body is still a Problem. */
export function checkOffContractResponse(response: CheckedResponse): void {
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.startsWith(PROBLEM_TYPE)) validate(response, "Problem", problemSchema, resolveOperation(response.method, response.path)?.operationId);
}
