import { OPERATIONS } from "@/packages/sdk/src/generated/operations";

/*
 * API paths for people to read (hints, curl examples, benchmarks' load generators), derived from
 * the generated operations list so that no caller writes an `/api/…` path by hand. Pure: the
 * dashboard's client components import it too.
 */

export type OperationName = keyof typeof OPERATIONS;

/** The operation's URL path under the API root, its `{params}` filled in: `/api/customers/cus_…`. */
export function operationPath(operationId: OperationName, params: Record<string, string> = {}): string {
  const template = OPERATIONS[operationId].path;
  const filled = template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? encodeURIComponent(params[name]!) : whole));
  return `/api${filled}`;
}

/** "POST /api/customers": the operation's method and path, its `{params}` left as written unless given. */
export function operationLine(operationId: OperationName, params: Record<string, string> = {}): string {
  return `${OPERATIONS[operationId].method} ${operationPath(operationId, params)}`;
}
