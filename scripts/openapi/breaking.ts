import { apiCompare, type Diff } from "api-smart-diff";

/**
 * The breaking-change gate: which changes between two OpenAPI documents break a merchant's
 * integration (a removed operation or response field, a narrowed request type, a newly required
 * request field, …), as api-smart-diff classifies them, less those listed as intended.
 */

type JsonObject = Record<string, unknown>;

/** An entry of openapi/intended-breaking-changes.json. */
export interface IntendedChange {
  /** A location as the check prints it; `*` stands for one segment, `**` for any number, and a change under it matches too. */
  path: string;
  reason: string;
}

export interface BreakingChange {
  /** JSON Pointer into the document (webhooks: `/webhooks/<event type>/payload/…`). */
  path: string;
  /** What a person reads: operation, part, field and change. */
  summary: string;
}

export interface BreakingReport {
  /** Breaking changes not listed as intended: the gate fails on these. */
  unintended: BreakingChange[];
  intended: { change: BreakingChange; reason: string }[];
  /** Intended entries that match no change (stale or mistyped), or have no reason: the gate fails on these too. */
  invalidEntries: { entry: IntendedChange; problem: string }[];
}

/** The `webhooks` of a 3.1 document, rewritten as GET operations answering their payload. */
const WEBHOOK_PATH_PREFIX = "webhook:";

/**
 * api-smart-diff has rules for `paths`, not for 3.1's `webhooks`. A webhook's payload is something
 * the service sends, as it sends a response: a removed field breaks a receiver, an added one does
 * not. So each webhook is compared as an operation whose 200 response is its request body.
 */
function webhooksAsOperations(document: JsonObject): JsonObject {
  const webhooks = document.webhooks as Record<string, Record<string, JsonObject>> | undefined;
  if (!webhooks) return document;
  const paths: JsonObject = { ...(document.paths as JsonObject | undefined) };
  for (const [name, pathItem] of Object.entries(webhooks)) {
    for (const operation of Object.values(pathItem)) {
      const requestBody = operation.requestBody as { content?: unknown } | undefined;
      paths[`${WEBHOOK_PATH_PREFIX}${name}`] = {
        get: { responses: { "200": { description: "payload", ...(requestBody?.content ? { content: requestBody.content } : {}) } } },
      };
    }
  }
  const { webhooks: _webhooks, ...rest } = document;
  return { ...rest, paths };
}

const escapePointer = (segment: string | number) => String(segment).replaceAll("~", "~0").replaceAll("/", "~1");

/** The JSON Pointer a person finds the change at (webhooks under their own section again). */
function pointerOf(path: readonly (string | number)[]): string {
  const [section, key, ...rest] = path;
  if (section === "paths" && typeof key === "string" && key.startsWith(WEBHOOK_PATH_PREFIX)) {
    // get / responses / 200 / content / <media type> / schema / …
    const payload = rest.length > 5 ? ["payload", ...rest.slice(6)] : rest.length > 0 ? ["payload"] : [];
    return `/${["webhooks", key.slice(WEBHOOK_PATH_PREFIX.length), ...payload].map(escapePointer).join("/")}`;
  }
  return `/${path.map(escapePointer).join("/")}`;
}

const COMBINERS = new Set(["allOf", "anyOf", "oneOf"]);

/** `items[].email` from `properties/items/items/properties/email`; array keywords keep their index's value. */
function fieldOf(schemaPath: readonly (string | number)[]): { field: string; keyword?: string } {
  let field = "";
  for (let i = 0; i < schemaPath.length; i++) {
    const segment = schemaPath[i]!;
    if (segment === "properties" && i + 1 < schemaPath.length) field += `${field ? "." : ""}${schemaPath[++i]}`;
    else if (segment === "items") field += "[]";
    else if (typeof segment === "string" && COMBINERS.has(segment)) i++;
    else if (segment === "additionalProperties") field += "{}";
    else return { field, keyword: String(segment) };
  }
  return { field };
}

const show = (value: unknown) => (typeof value === "string" ? `"${value}"` : JSON.stringify(value));

/** Where in an operation the change is, and its field path inside that part's schema. */
function describe(diff: Diff, document: { before: JsonObject; after: JsonObject }): string {
  const path = diff.path;
  if (path[0] !== "paths") return `${pointerOf(path)}: ${diff.action}`;
  const pathKey = String(path[1]);
  const method = path[2] === undefined ? undefined : String(path[2]);
  const label = pathKey.startsWith(WEBHOOK_PATH_PREFIX)
    ? `webhook ${pathKey.slice(WEBHOOK_PATH_PREFIX.length)}`
    : `${method?.toUpperCase() ?? ""} ${pathKey}`.trim();
  if (path.length <= 3) return `${label}: operation ${diff.action === "remove" ? "removed" : diff.action}`;

  let part: string;
  let schemaPath: readonly (string | number)[];
  if (path[3] === "requestBody") {
    part = "request body";
    schemaPath = path.slice(7);
  } else if (path[3] === "responses") {
    part = pathKey.startsWith(WEBHOOK_PATH_PREFIX) ? "payload" : `response ${path[4]}`;
    schemaPath = path.slice(8);
  } else if (path[3] === "parameters") {
    const source = diff.action === "add" ? document.after : document.before;
    const parameters = ((source.paths as JsonObject)[pathKey] as JsonObject)[method!] as { parameters?: { in: string; name: string }[] };
    const parameter = parameters.parameters?.[Number(path[4])];
    part = parameter ? `${parameter.in} parameter \`${parameter.name}\`` : "a parameter";
    if (path[5] === "required" && diff.after === true) return `${label}, ${part}: became required`;
    if (path.length === 5) return `${label}, ${part}: ${diff.action === "add" ? "added" : diff.action === "remove" ? "removed" : "changed"}`;
    if (path[5] !== "schema") return `${label}, ${part}: ${path.slice(5).join(".")} changed from ${show(diff.before)} to ${show(diff.after)}`;
    schemaPath = path.slice(6);
  } else {
    return `${label}: ${diff.action} ${path.slice(3).join(".")}`;
  }
  const { field, keyword } = fieldOf(schemaPath);
  const where = `${label}, ${part}${field ? ` › ${field}` : ""}`;
  const value = diff.action === "add" ? diff.after : diff.before;
  if (keyword === "required" && schemaPath.length > 1) {
    return `${where}: ${show(value)} ${diff.action === "add" ? "became required" : "is no longer required"}`;
  }
  if (keyword === "enum" && schemaPath.length > 1) {
    return `${where}: enum value ${show(value)} ${diff.action === "add" ? "added" : diff.action === "remove" ? "removed" : "changed"}`;
  }
  const what = keyword ? ` ${keyword}` : "";
  if (diff.action === "remove") return `${where}:${what} removed (was ${show(diff.before)})`;
  if (diff.action === "add") return `${where}:${what} added ${show(diff.after)}`;
  return `${where}:${what} changed from ${show(diff.before)} to ${show(diff.after)}`;
}

/**
 * Every breaking change from `before` to `after`. Changes inside `components` are left out: the
 * same change is reported at each operation (or webhook) that uses the component, where it breaks
 * something; an unused component breaks nobody.
 */
export function breakingChanges(before: JsonObject, after: JsonObject): BreakingChange[] {
  const documents = { before: webhooksAsOperations(before), after: webhooksAsOperations(after) };
  const { diffs } = apiCompare(documents.before, documents.after);
  const changes = diffs
    .filter((diff) => diff.type === "breaking" && diff.path[0] !== "components")
    .map((diff) => ({ path: pointerOf(diff.path), summary: describe(diff, documents) }));
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

function patternOf(entryPath: string): RegExp {
  const escaped = entryPath
    .replace(/\/+$/, "")
    .split("/")
    .map((segment) => (segment === "**" ? "(?:/[^/]+)*" : segment === "*" ? "/[^/]+" : `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
    .slice(1)
    .join("");
  // A change at the entry's location or anywhere below it.
  return new RegExp(`^${escaped}(?:/.*)?$`);
}

/** Splits the breaking changes into those listed as intended and the rest. */
export function checkBreakingChanges(before: JsonObject, after: JsonObject, intendedChanges: IntendedChange[]): BreakingReport {
  const changes = breakingChanges(before, after);
  const entries = intendedChanges.map((entry) => ({ entry, pattern: patternOf(entry.path), used: false }));
  const report: BreakingReport = { unintended: [], intended: [], invalidEntries: [] };
  for (const change of changes) {
    // Every entry a change matches is in use (entries of several releases may overlap).
    const matches = entries.filter(({ pattern }) => pattern.test(change.path));
    for (const match of matches) match.used = true;
    if (matches[0]) {
      report.intended.push({ change, reason: matches[0].entry.reason });
    } else {
      report.unintended.push(change);
    }
  }
  for (const { entry, used } of entries) {
    if (!entry.reason?.trim()) report.invalidEntries.push({ entry, problem: "has no reason" });
    else if (!used) report.invalidEntries.push({ entry, problem: "matches no breaking change (remove it, or fix its path)" });
  }
  return report;
}

/** The report as lines for a terminal or a test failure. */
export function formatReport(report: BreakingReport): string[] {
  return [
    ...report.unintended.map((change) => `breaking: ${change.summary}\n    at ${change.path}`),
    ...report.invalidEntries.map(({ entry, problem }) => `intended-breaking-changes entry ${JSON.stringify(entry.path)} ${problem}`),
  ];
}
