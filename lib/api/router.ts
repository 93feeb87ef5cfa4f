import { ServiceError } from "@/lib/errors";
import { failWith, METHODS, routeHandlers, type MethodExports, type OperationHandler, type RouteHandler } from "./handler";
import type { HttpMethod, Operation } from "./operation";

/**
 * The router behind the catch-all route `app/api/[[...path]]/route.ts`: every operation's path and
 * unscoped path, compiled once into a segment trie. A literal segment wins over a parameter (as
 * Next's file routes did: `/events/feed` before `/{account_id}/…`); a parameter never matches an
 * empty segment. 404 (no path), 405 with `Allow` and CORS preflights are answered per path by
 * `routeHandlers()`, from the methods the operations declare.
 */

type Leaf = {
  /** The parameter name of each segment, null for a literal one. */
  names: readonly (string | null)[];
  exports: MethodExports;
};
type TrieNode = { literals: Map<string, TrieNode>; param?: TrieNode; leaf?: Leaf };

export type RouteMatch = { leaf: Leaf; params: Record<string, string> };

export type ApiRouter = {
  /** The route file's exports: each dispatches to the matched path's handler for its method. */
  exports: MethodExports;
  match(segments: readonly string[]): RouteMatch | undefined;
  /** Every served path (OpenAPI form, relative to /api) with its methods. */
  paths: ReadonlyMap<string, readonly HttpMethod[]>;
};

const PARAM = /^\{(\w+)\}$/;
const newNode = (): TrieNode => ({ literals: new Map() });

/** Refuses an operation without a handler, a handler of an unlisted operation, and duplicates. */
function checkOneToOne(operations: readonly Operation[], handlers: readonly OperationHandler[]): void {
  const listed = new Set(operations);
  const implemented = new Set<Operation>();
  for (const { operation } of handlers) {
    if (!listed.has(operation)) {
      throw new Error(`${operation.operationId} has a handler but is not listed in lib/api/operations-index.ts.`);
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
  const root = newNode();
  const paths = new Map<string, HttpMethod[]>();
  for (const [path, methods] of methodsByPath(handlers)) {
    const segments = path.split("/").slice(1);
    let node = root;
    for (const segment of segments) {
      if (PARAM.test(segment)) node = node.param ??= newNode();
      else {
        const next = node.literals.get(segment) ?? newNode();
        node.literals.set(segment, next);
        node = next;
      }
    }
    if (node.leaf) throw new Error(`${path} has the shape of another path with other parameter names.`);
    node.leaf = { names: segments.map((segment) => PARAM.exec(segment)?.[1] ?? null), exports: routeHandlers(methods) };
    paths.set(path, METHODS.filter((method) => methods[method]));
  }

  const find = (node: TrieNode, segments: readonly string[], index: number): Leaf | undefined => {
    if (index === segments.length) return node.leaf;
    const segment = segments[index]!;
    const literal = node.literals.get(segment);
    const found = literal && find(literal, segments, index + 1);
    if (found) return found;
    return node.param && segment !== "" ? find(node.param, segments, index + 1) : undefined;
  };

  const match = (segments: readonly string[]): RouteMatch | undefined => {
    const leaf = find(root, segments, 0);
    if (!leaf) return undefined;
    const params: Record<string, string> = {};
    leaf.names.forEach((name, index) => {
      if (name !== null) params[name] = segments[index]!;
    });
    return { leaf, params };
  };

  const notFound = failWith(() => new ServiceError("not_found", "No API operation exists at this path."));
  const dispatch =
    (method: HttpMethod | "OPTIONS"): RouteHandler =>
    async (request, context) => {
      // Next passes the catch-all's segments, already split and percent-decoded.
      const { path } = await context.params;
      const found = match(Array.isArray(path) ? path : []);
      if (!found) return notFound(request, context);
      return found.leaf.exports[method](request, { params: Promise.resolve(found.params) });
    };
  const exports = {} as MethodExports;
  for (const method of [...METHODS, "OPTIONS" as const]) exports[method] = dispatch(method);
  return { exports, match, paths };
}
