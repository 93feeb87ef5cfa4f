import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * `npm run graph:check` (part of `npm run lint`): the import graph of the app's source, read from
 * the files themselves. A value import counts (static `import`/`export … from`, and dynamic
 * `import()`); `import type` / `export type` and imports whose every name is `type` are erased by
 * the compiler and do not. It fails when a file-level cycle exists, or when the folders and
 * top-level files under lib/ (each one node) form a strongly connected set larger than
 * MAX_FOLDER_SCC (docs/ARCHITECTURE.md, "Layers").
 */

export const SCANNED = ["lib", "db", "app", "components", "inngest"];
export const MAX_FOLDER_SCC = 3;

export type Graph = Map<string, Set<string>>;

const EXTENSIONS = [".ts", ".tsx"];

function sourceFiles(root: string, folder: string): string[] {
  const dir = path.join(root, folder);
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const rel = path.posix.join(folder, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...sourceFiles(root, rel));
    else if (EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** The file a specifier names, relative to root, or undefined for a package or a non-source file. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return undefined;
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => `${base}/index${ext}`)];
  return candidates.find((candidate) => EXTENSIONS.some((ext) => candidate.endsWith(ext)) && existsSync(path.join(root, candidate)));
}

/** The specifiers of `text`'s value imports: static and dynamic, not type-only. */
export function valueImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every scanned file and the scanned files it imports by value. */
export function readGraph(root: string, overrides: Record<string, string> = {}): Graph {
  const graph: Graph = new Map();
  const files = new Set([...SCANNED.flatMap((folder) => sourceFiles(root, folder)), ...Object.keys(overrides)]);
  for (const file of files) {
    const text = overrides[file] ?? readFileSync(path.join(root, file), "utf8");
    const targets = new Set<string>();
    for (const specifier of valueImports(file, text)) {
      const target = resolve(root, file, specifier) ?? (overrides[`${specifier.replace(/^@\//, "")}.ts`] !== undefined ? `${specifier.replace(/^@\//, "")}.ts` : undefined);
      if (target && target !== file && SCANNED.some((folder) => target.startsWith(`${folder}/`))) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components, each sorted; only those of more than one node. */
export function stronglyConnected(graph: Graph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (indices.has(start)) continue;
    const work: { node: string; edges: string[]; next: number }[] = [];
    const enter = (node: string) => {
      indices.set(node, index);
      low.set(node, index);
      index++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(graph.get(node) ?? [])], next: 0 });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.next < frame.edges.length) {
        const target = frame.edges[frame.next++]!;
        if (!indices.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, indices.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === indices.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) out.push(component.sort());
      }
    }
  }
  return out.sort((a, b) => b.length - a.length);
}

/** A shortest cycle through `start` inside `members` (breadth-first), as a path that returns to start. */
export function shortestCycle(graph: Graph, start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const cycle = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at)) cycle.splice(1, 0, at);
        return [...cycle, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [];
}

/** The folder (or top-level file) under lib/ a file belongs to, or undefined outside lib/. */
export function libNode(file: string): string | undefined {
  const match = /^lib\/([^/]+)(\/)?/.exec(file);
  if (!match) return undefined;
  return match[2] ? `lib/${match[1]}/` : `lib/${match[1]}`;
}

export function folderGraph(graph: Graph): Graph {
  const folders: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = libNode(file);
    if (!from) continue;
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets) {
      const to = libNode(target);
      if (to && to !== from) edges.add(to);
    }
  }
  return folders;
}

export type Report = { files: number; fileCycles: string[][]; folders: number; folderSccs: string[][]; ok: boolean };

export function check(graph: Graph): Report {
  const fileCycles = stronglyConnected(graph);
  const folders = folderGraph(graph);
  const folderSccs = stronglyConnected(folders);
  const ok = fileCycles.length === 0 && folderSccs.every((component) => component.length <= MAX_FOLDER_SCC);
  return { files: graph.size, fileCycles, folders: folders.size, folderSccs, ok };
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const graph = readGraph(root);
  const report = check(graph);
  const folders = folderGraph(graph);
  console.log(`import graph: ${report.files} files of ${SCANNED.join(", ")}; ${report.folders} nodes under lib/`);
  if (report.fileCycles.length === 0) console.log("file cycles: none");
  for (const component of report.fileCycles) {
    const members = new Set(component);
    console.log(`file cycle set of ${component.length} files, e.g. ${shortestCycle(graph, component[0]!, members).join(" → ")}`);
    if (process.argv.includes("--verbose")) for (const file of component) console.log(`  ${file}`);
  }
  const largest = report.folderSccs[0]?.length ?? 1;
  console.log(`largest strongly connected set of lib/ nodes: ${largest} (limit ${MAX_FOLDER_SCC})`);
  for (const component of report.folderSccs) {
    const members = new Set(component);
    console.log(`  ${component.length}: ${component.join(" ")}`);
    if (component.length > MAX_FOLDER_SCC) console.log(`    e.g. ${shortestCycle(folders, component[0]!, members).join(" → ")}`);
  }
  if (!report.ok) {
    console.error(
      `graph:check failed: no file-level import cycle (static or dynamic), and no set of more than ${MAX_FOLDER_SCC} lib/ folders that import each other (docs/ARCHITECTURE.md, "Layers").`,
    );
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
