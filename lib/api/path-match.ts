/**
 * Matches a request's path segments against OpenAPI-form paths (`/{account_id}/customers/{id}`),
 * compiled once into a segment trie. A literal segment wins over a parameter (`/events/feed`
 * before `/{account_id}/…`); a parameter never matches an empty segment. Pure: the API's router
 * (lib/api/router.ts) and the test client (tests/helpers/api-client.ts) share it, so both resolve
 * a path to the same operation.
 */

type Leaf<T> = {
  /** The parameter name of each segment, null for a literal one. */
  names: readonly (string | null)[];
  value: T;
};
type TrieNode<T> = { literals: Map<string, TrieNode<T>>; param?: TrieNode<T>; leaf?: Leaf<T> };

export type PathMatch<T> = { value: T; params: Record<string, string> };
export type PathMatcher<T> = (segments: readonly string[]) => PathMatch<T> | undefined;

const PARAM = /^\{(\w+)\}$/;
const newNode = <T>(): TrieNode<T> => ({ literals: new Map() });

/** `"/a/{b}"` → `["a", "{b}"]`: a path's segments after the leading slash. */
export const pathSegments = (path: string): string[] => path.split("/").slice(1);

export function compilePathMatcher<T>(entries: Iterable<readonly [path: string, value: T]>): PathMatcher<T> {
  const root = newNode<T>();
  for (const [path, value] of entries) {
    const segments = pathSegments(path);
    let node = root;
    for (const segment of segments) {
      if (PARAM.test(segment)) node = node.param ??= newNode();
      else {
        const next = node.literals.get(segment) ?? newNode<T>();
        node.literals.set(segment, next);
        node = next;
      }
    }
    if (node.leaf) throw new Error(`${path} has the shape of another path with other parameter names.`);
    node.leaf = { names: segments.map((segment) => PARAM.exec(segment)?.[1] ?? null), value };
  }

  const find = (node: TrieNode<T>, segments: readonly string[], index: number): Leaf<T> | undefined => {
    if (index === segments.length) return node.leaf;
    const segment = segments[index]!;
    const literal = node.literals.get(segment);
    const found = literal && find(literal, segments, index + 1);
    if (found) return found;
    return node.param && segment !== "" ? find(node.param, segments, index + 1) : undefined;
  };

  return (segments) => {
    const leaf = find(root, segments, 0);
    if (!leaf) return undefined;
    const params: Record<string, string> = {};
    leaf.names.forEach((name, index) => {
      if (name !== null) params[name] = segments[index]!;
    });
    return { value: leaf.value, params };
  };
}
