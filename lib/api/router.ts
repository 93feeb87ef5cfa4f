import { ServiceError } from "@/lib/errors";
import { failWith, METHODS, routeHandlers, type MethodExports, type OperationHandler, type RouteHandler } from "./handler";
import type { HttpMethod, Operation } from "./operation";
import { compilePathMatcher, type PathMatch } from "./path-match";

/**
 * The router behind the catch-all route `app/api/[[...path]]/route.ts`: every operation's path and
 * unscoped path, matched by lib/api/path-match.ts (a literal segment wins over a parameter; a
 * parameter never matches an empty segment). 404 (no path), 405 with `Allow` and CORS preflights
 * are answered per path by `routeHandlers()`, from the methods the operations declare.
 */

export type RouteMatch = PathMatch<MethodExports>;

export type ApiRouter = {
  /** The route file's exports: each dispatches to the matched path's handler for its method. */
  exports: MethodExports;
  match(segments: readonly string[]): RouteMatch | undefined;
  /** Every served path (OpenAPI form, relative to /api) with its methods. */
  paths: ReadonlyMap<string, readonly HttpMethod[]>;
};

/** Refuses an operation without a handler, a handler of an unlisted operation, and duplicates. */
function checkOneToOne(operations: readonly Operation[], handlers: readonly OperationHandler[]): void {
  const listed = new Set(operations);
  const implemented = new Set<Operation>();
  for (const { operation } of handlers) {
    if (!listed.has(operation)) {
      throw new Error(`${operation.operationId} has a handler but is not listed in lib/server/operations-index.ts.`);
    }
    if (implemented.has(operation)) throw new Error(`${operation.operationId} has two handlers.`);
    implemented.add(operation);
  }
  const missing = operations.filter((operation) => !implemented.has(operation)).map((operation) => operation.operationId);
  if (missing.length > 0) throw new Error(`No handler for ${missing.join(", ")} (write it in lib/<domain>/handlers.ts).`);
}

function methodsByPath(handlers: readonly OperationHandler[]): Map<string, Partial<Record<HttpMethod, RouteHandler>>> {
  const byPath = new Map<string, Partial<Record<HttpMethod, RouteHandler>>>();
  for (const handle of handlers) {
    const { operation } = handle;
    for (const path of [operation.path, operation.unscopedPath]) {
      if (path === undefined) continue;
      const methods = byPath.get(path) ?? {};
      if (methods[operation.method]) throw new Error(`Two operations serve ${operation.method} ${path}.`);
      methods[operation.method] = handle;
      byPath.set(path, methods);
    }
  }
  return byPath;
}

export function compileRouter(operations: readonly Operation[], handlers: readonly OperationHandler[]): ApiRouter {
  checkOneToOne(operations, handlers);
  const byPath = methodsByPath(handlers);
  const match = compilePathMatcher([...byPath].map(([path, methods]) => [path, routeHandlers(methods)] as const));
  const paths = new Map<string, HttpMethod[]>();
  for (const [path, methods] of byPath) paths.set(path, METHODS.filter((method) => methods[method]));

  const notFound = failWith(() => new ServiceError("not_found", "No API operation exists at this path."));
  const dispatch =
    (method: HttpMethod | "OPTIONS"): RouteHandler =>
    async (request, context) => {
      // Next passes the catch-all's segments, already split and percent-decoded.
      const { path } = await context.params;
      const found = match(Array.isArray(path) ? path : []);
      if (!found) return notFound(request, context);
      return found.value[method](request, { params: Promise.resolve(found.params) });
    };
  const exports = {} as MethodExports;
  for (const method of [...METHODS, "OPTIONS" as const]) exports[method] = dispatch(method);
  return { exports, match, paths };
}
