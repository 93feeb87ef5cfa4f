import type { oas31 } from "zod-openapi";
import { exampleValue } from "@/lib/openapi-example";
import { Fields, Prose, TypeLabel, type Schema } from "./schema-view";

export type Method = "get" | "post" | "put" | "patch" | "delete";
/**
 * One operation as the reference shows it: on its path without the account segment when it has
 * one (acting on the token's account), with the account-scoped path it is also served on.
 */
export type OperationEntry = { method: Method; path: string; operation: oas31.OperationObject; scopedPath?: string };

const METHOD_STYLES: Record<Method, string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-900",
  patch: "bg-amber-100 text-amber-900",
  delete: "bg-red-100 text-red-800",
};

export function MethodBadge({ method }: { method: Method }) {
  return (
    <span className={`inline-block w-14 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-[0.7rem] font-bold uppercase ${METHOD_STYLES[method]}`}>
      {method}
    </span>
  );
}

export const operationAnchor = (entry: OperationEntry) => entry.operation.operationId ?? `${entry.method}-${entry.path}`;

function authLabel(security: oas31.SecurityRequirementObject[] | undefined): string {
  if (!security || security.length === 0) return "No authentication.";
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes("dashboardSession")) return "A signed-in dashboard session (same-origin).";
  return "Bearer token: `Authorization: Bearer st_…`.";
}

function jsonSchema(content: oas31.ContentObject | undefined): Schema | undefined {
  return content?.["application/json"]?.schema ?? content?.["application/problem+json"]?.schema;
}

function Parameters({ parameters }: { parameters: oas31.ParameterObject[] }) {
  if (parameters.length === 0) return null;
  const groups = (["path", "query", "header"] as const)
    .map((where) => ({ where, items: parameters.filter((parameter) => parameter.in === where) }))
    .filter((group) => group.items.length > 0);
  return (
    <>
      {groups.map((group) => (
        <div key={group.where} className="mt-3">
          <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{group.where} parameters</h4>
          <dl className="divide-y divide-slate-100">
            {group.items.map((parameter) => (
              <div key={parameter.name} className="py-2">
                <dt className="flex flex-wrap items-baseline gap-x-2 text-sm">
                  <code className="font-mono font-semibold">{parameter.name}</code>
                  {parameter.schema && (
                    <span className="text-xs text-slate-600">
                      <TypeLabel schema={parameter.schema} />
                    </span>
                  )}
                  {parameter.required ? (
                    <span className="text-xs font-medium text-red-700">required</span>
                  ) : (
                    <span className="text-xs text-slate-500">optional</span>
                  )}
                </dt>
                <dd>
                  <Prose text={parameter.description} />
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </>
  );
}

/** Path parameters become shell variables (`{customer_id}` → `$CUSTOMER_ID`): curl would glob the braces. */
const shellPath = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => `$${name.toUpperCase()}`);

/** A runnable request: the real base URL, the token, and a body generated from the request schema. */
function curlExample(entry: OperationEntry, server: string, body: Schema | undefined, components: Record<string, Schema>): string {
  const lines = [`curl -X ${entry.method.toUpperCase()} "${server}${shellPath(entry.path)}"`];
  if (entry.operation.security?.some((requirement) => "bearerAuth" in requirement)) lines.push(`  -H "Authorization: Bearer $TOKEN"`);
  if (body) {
    const json = JSON.stringify(exampleValue(body, components)).replaceAll("'", "'\\''");
    lines.push(`  -H "Content-Type: application/json"`, `  -d '${json}'`);
  }
  return lines.join(" \\\n");
}

export function OperationView({ entry, server, components }: { entry: OperationEntry; server: string; components: Record<string, Schema> }) {
  const { operation } = entry;
  const parameters = (operation.parameters ?? []).filter((parameter): parameter is oas31.ParameterObject => "in" in parameter);
  const body = operation.requestBody && "content" in operation.requestBody ? jsonSchema(operation.requestBody.content) : undefined;
  const apiPrefix = new URL(server, "http://x").pathname.replace(/\/$/, "");
  const responses = Object.entries(operation.responses ?? {}) as [string, oas31.ResponseObject | oas31.ReferenceObject][];
  return (
    <article id={operationAnchor(entry)} className="scroll-mt-4 rounded-lg [contain-intrinsic-size:auto_480px] [content-visibility:auto] border border-slate-200 bg-white p-4 shadow-sm" data-testid="operation">
      <header className="flex flex-wrap items-center gap-2">
        <MethodBadge method={entry.method} />
        <code className="break-all font-mono text-sm" data-testid="operation-path">
          {apiPrefix}
          {entry.path}
        </code>
        {operation.deprecated && <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">deprecated</span>}
      </header>
      {entry.scopedPath && (
        <p className="mt-1 text-xs text-slate-500" data-testid="scoped-path">
          Also served account-scoped: <code className="break-all font-mono">{apiPrefix + entry.scopedPath}</code> (the account must be the token&apos;s).
        </p>
      )}
      <h3 className="mt-2 text-base font-semibold">{operation.summary}</h3>
      <Prose text={operation.description} className="mt-1" />
      <Prose text={authLabel(operation.security)} className="mt-1 text-xs text-slate-500" />
      <Parameters parameters={parameters} />
      {body && (
        <div className="mt-3">
          <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Request body (application/json)</h4>
          <Fields schema={body} />
        </div>
      )}
      <div className="mt-3">
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Responses</h4>
        <ul className="mt-1 space-y-1 text-sm">
          {responses.map(([status, response]) => {
            const schema = "content" in response ? jsonSchema(response.content) : undefined;
            return (
              <li key={status} className="flex flex-wrap gap-x-2">
                <code className={`font-mono font-semibold ${status.startsWith("2") ? "text-emerald-700" : "text-slate-600"}`}>{status}</code>
                <span className="text-slate-700">{"description" in response ? response.description : ""}</span>
                {schema && (
                  <span className="text-xs text-slate-500">
                    <TypeLabel schema={schema} />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
      <pre data-testid="curl" className="mt-3 overflow-x-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100">{curlExample(entry, server, body, components)}</pre>
    </article>
  );
}
