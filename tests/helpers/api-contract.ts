import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";
import { compilePathMatcher, pathSegments, type PathMatcher } from "@/lib/api/path-match";
import { isSyntheticEvent } from "./synthetic";

/**
 * Checks API responses against the committed OpenAPI document (packages/sdk/openapi.json, made by
 * `npm run sdk:generate`): a 2xx against the operation's declared success response, a 4xx/5xx
 * against `Problem`. Each request's method and path resolve to an operation with the server's own
 * matching rule (lib/api/path-match.ts). Free of vitest, so the e2e specs can use it too.
 *
 * Every validator (one per operation and status, and Problem) is compiled once per version of the
 * document, into a module of Ajv's standalone code cached under node_modules/.cache/billing-service
 * (`compiledValidatorsPath`), which each test file loads. Compiling in every file was 45 % of an api
 * worker's CPU (each file is a fresh module graph, and an operation's schema pulls in every schema
 * it references): docs/testing.md, "Measured".
 */

type ResponseObject = { content?: Record<string, { schema?: object }> };
type OperationObject = { operationId: string; responses: Record<string, ResponseObject> };
type OpenApiDocument = { paths: Record<string, Record<string, OperationObject>>; components: { schemas: Record<string, SchemaObject> } };

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
  /** "operationId status" (or "Problem") → its validator. */
  validators: ReadonlyMap<string, ValidateFunction>;
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

const DOCUMENT_PATH = new URL("../../packages/sdk/openapi.json", import.meta.url);
/** Inside node_modules, so the standalone code's own `require`s (Ajv's runtime, ajv-formats) resolve from it. */
const CACHE_DIRECTORY = fileURLToPath(new URL("../../node_modules/.cache/billing-service/", import.meta.url));
const PROBLEM_KEY = "Problem";
const problemSchema = { $ref: "#/components/schemas/Problem" };
/** Ajv's options, part of the cache key: OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and other annotations are not keywords Ajv knows. */
const AJV_OPTIONS = { strict: false, allErrors: true, discriminator: true, inlineRefs: false } as const;

/** Each validator's key and the schema it checks a body against. */
function responseSchemas(document: OpenApiDocument): Map<string, object> {
  const schemas = new Map<string, object>([[PROBLEM_KEY, problemSchema]]);
  for (const methods of Object.values(document.paths)) {
    for (const operation of Object.values(methods)) {
      for (const [status, declared] of Object.entries(operation.responses ?? {})) {
        const schema = declared.content?.["application/json"]?.schema;
        if (schema) schemas.set(`${operation.operationId} ${status}`, schema);
      }
    }
  }
  return schemas;
}

/** The cached module of the document's validators: named by what its code depends on, so a changed document, Ajv or option makes a new one. */
function compiledValidatorsPath(documentText: string): string {
  const require = createRequire(import.meta.url);
  const ajvVersion = (JSON.parse(readFileSync(require.resolve("ajv/package.json"), "utf8")) as { version: string }).version;
  const key = createHash("sha256").update(documentText).update(`ajv ${ajvVersion} ${JSON.stringify(AJV_OPTIONS)} event discriminators`).digest("hex").slice(0, 16);
  return path.join(CACHE_DIRECTORY, `api-contract-${key}.cjs`);
}

type SchemaObject = { $ref?: string; oneOf?: SchemaObject[]; properties?: Record<string, { const?: unknown }>; required?: string[]; discriminator?: { propertyName: string } };

/**
 * The components, with `discriminator: { propertyName: "type" }` on every `oneOf` whose branches
 * each require a `type` of its own constant (Event, EventListItem, WebhookEvent: 105 branches).
 * For such a union the discriminator is the same check as the `oneOf` (the constants differ, so a
 * body matches exactly the branch its `type` names or none), but Ajv then validates that branch
 * alone instead of all 105: every event in a response was validated 105 times, which was most of
 * the validating.
 */
function withEventDiscriminators(components: { schemas: Record<string, SchemaObject> }): object {
  const resolve = (schema: SchemaObject): SchemaObject | undefined =>
    schema.$ref?.startsWith("#/components/schemas/") ? components.schemas[schema.$ref.slice("#/components/schemas/".length)] : schema;
  const tagged = (branch: SchemaObject) => {
    const target = resolve(branch);
    return target?.properties?.type?.const !== undefined && target.required?.includes("type") === true ? target.properties.type.const : undefined;
  };
  const schemas = Object.fromEntries(
    Object.entries(components.schemas).map(([name, schema]) => {
      const tags = schema.oneOf?.map(tagged);
      const discriminated = tags !== undefined && tags.length > 1 && tags.every((tag) => tag !== undefined) && new Set(tags).size === tags.length;
      return [name, discriminated ? { ...schema, discriminator: { propertyName: "type" } } : schema];
    }),
  );
  return { ...components, schemas };
}

/**
 * Compiles every validator and writes them as one CommonJS module of standalone code (its
 * `keys` export maps a validator's key to its export). `inlineRefs: false` compiles each
 * referenced schema once as a function of its own, which keeps the module to a size that loads
 * in a fraction of a second. Written beside and renamed, so two processes making it at once
 * each leave a whole file.
 */
function writeCompiledValidators(document: OpenApiDocument, file: string): void {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true } });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: absoluteRefs(withEventDiscriminators(document.components)) });
  const keys: Record<string, string> = {};
  for (const [index, [key, schema]] of [...responseSchemas(document)].entries()) {
    const exportName = `v${index}`;
    ajv.addSchema(absoluteRefs(schema) as object, exportName);
    keys[key] = exportName;
  }
  const code = `${standaloneCode(ajv, Object.fromEntries(Object.values(keys).map((name) => [name, name])))}\nexports.keys = ${JSON.stringify(keys)};\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

/** The document's validators, compiled on the first use of a version of the document and loaded from the cache after. */
export function prepareContractValidators(documentText = readFileSync(DOCUMENT_PATH, "utf8")): { file: string; compiled: boolean } {
  const file = compiledValidatorsPath(documentText);
  if (existsSync(file)) return { file, compiled: false };
  writeCompiledValidators(JSON.parse(documentText) as OpenApiDocument, file);
  return { file, compiled: true };
}

function loadContract(): Contract {
  const documentText = readFileSync(DOCUMENT_PATH, "utf8");
  const document = JSON.parse(documentText) as OpenApiDocument;
  const { file } = prepareContractValidators(documentText);
  const compiled = createRequire(import.meta.url)(file) as { keys: Record<string, string> } & Record<string, ValidateFunction>;
  const validators = new Map(Object.entries(compiled.keys).map(([key, exportName]) => [key, compiled[exportName]!]));
  const match = compilePathMatcher(Object.entries(document.paths));
  return { match, validators };
}

function validatorFor(key: string): ValidateFunction {
  contract ??= loadContract();
  const validate = contract.validators.get(key);
  if (!validate) throw new Error(`no validator for ${key}: packages/sdk/openapi.json declares no JSON body for it`);
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

function validate(response: CheckedResponse, key: string, operationId: string | undefined): void {
  const body = withoutSyntheticEvents(response.body);
  if (body === SKIP) return;
  const check = validatorFor(key);
  if (!check(body)) throw new ContractViolation(describe(response, operationId, "the body does not match its schema", check.errors));
  validatedResponses++;
}

function checkProblem(response: CheckedResponse, operationId: string | undefined): void {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.startsWith(PROBLEM_TYPE)) {
    throw new ContractViolation(describe(response, operationId, `an error must be ${PROBLEM_TYPE}, not "${contentType}"`));
  }
  validate(response, PROBLEM_KEY, operationId);
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
  validate(response, `${operation.operationId} ${response.status}`, operation.operationId);
}

/** What an off-contract response can still be held to: a problem body is still a Problem. */
export function checkOffContractResponse(response: CheckedResponse): void {
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.startsWith(PROBLEM_TYPE)) validate(response, PROBLEM_KEY, resolveOperation(response.method, response.path)?.operationId);
}
