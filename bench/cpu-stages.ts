import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AnyMap, originalPositionFor, type TraceMap } from "@jridgewell/trace-mapping";

/**
 * Where a server's CPU went, by stage of a request, from a V8 CPU profile (`--cpu-prof`) of
 * `next start`: each sample is given to the stage of the innermost frame that names one (the app's
 * bundled frames read through the build's source maps back to their `lib/…` file; the external
 * packages by their path), samples inside a time window only (one benchmark row). Frames of Node's
 * own code (sockets, streams, timers) count as "Node.js" only when no frame above them names a stage.
 */

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** Stages by the source path of a frame, first match wins; the order puts the specific before the general. */
const STAGES: [stage: string, test: RegExp][] = [
  ["PostgreSQL driver (postgres.js)", /node_modules\/postgres\//],
  // db/watchdog.ts wraps the pool's sockets' write and emit: what runs under those wrappers (and is
  // not postgres.js's own parsing) is the sockets' reading and writing.
  ["database sockets (reads and writes)", /\/db\/watchdog\.ts/],
  ["list totals", /\/db\/list-(totals|triggers)\.ts/],
  ["query building (drizzle-orm)", /node_modules\/drizzle-orm\//],
  ["validation (zod, schemas)", /node_modules\/zod\/|\/lib\/api\/validation\.ts|\/lib\/[^/]+\/schema\.ts|\/lib\/schemas\.ts/],
  ["rate limit", /rate-limiter-flexible|\/lib\/api\/rate-limit\.ts/],
  ["auth (token lookup)", /\/lib\/auth\/|\/lib\/api-tokens\/|\/lib\/permissions\.ts/],
  ["idempotency", /\/lib\/idempotency\//],
  ["request log", /\/lib\/request-recorder\/|\/lib\/request-logs\//],
  ["events (payload, sequence, counts)", /\/lib\/events\//],
  ["webhook fan-out and delivery", /\/lib\/webhooks\//],
  ["serialization", /\/serialize\.ts/],
  ["API wrapper (routing, errors, limits)", /\/lib\/api\/|\/lib\/http\/|\/app\/api\//],
  ["the domain service", /\/lib\/(customers|usage|meters)\//],
  ["other app code", /\/lib\/|\/db\//],
  ["Next.js (request, response, routing)", /node_modules\/next\/|\/\.next\/server\/|\[externals\]_next/],
  ["other packages", /node_modules\//],
];
const NODE = "Node.js (sockets, streams, timers, JSON)";

const frameKey = (frame: CallFrame) => `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;

/** "lib/customers/service.ts" of a mapped source, "node_modules/postgres" of a package's file. */
function shortSource(source: string): string {
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (packaged) return `node_modules/${packaged[1]}`;
  const project = /(?:^|\/)((?:lib|app|db|components)\/[^/].*)$/.exec(source.replace(/^.*\[project\]\//, ""));
  return project ? project[1]! : source;
}

export class CpuStages {
  private readonly maps = new Map<string, TraceMap | null>();
  private readonly frameStage = new Map<string, string | null>();
  private readonly frameSource = new Map<string, string>();

  /** CPU milliseconds per stage in [fromUs, toUs) of the profile's clock (process.hrtime's, in µs), idle excluded. */
  attribute(profile: CpuProfile, fromUs: number, toUs: number): Map<string, number> {
    return this.sum(profile, fromUs, toUs, "stage");
  }

  /** The same samples by the source file of the frame that named their stage ("lib/customers/service.ts", "node_modules/postgres"). */
  files(profile: CpuProfile, fromUs: number, toUs: number): Map<string, number> {
    return this.sum(profile, fromUs, toUs, "file");
  }

  private sum(profile: CpuProfile, fromUs: number, toUs: number, by: "stage" | "file"): Map<string, number> {
    const parents = new Map<number, ProfileNode>();
    const byId = new Map<number, ProfileNode>();
    for (const node of profile.nodes) {
      byId.set(node.id, node);
      for (const child of node.children ?? []) parents.set(child, node);
    }
    const stageOfNode = new Map<number, { stage: string; file: string }>();
    const stageOf = (node: ProfileNode): { stage: string; file: string } => {
      const known = stageOfNode.get(node.id);
      if (known) return known;
      let found: { stage: string; file: string } | null = null;
      let weak: { stage: string; file: string } | null = null;
      for (let frame: ProfileNode | undefined = node; frame && !found; frame = parents.get(frame.id)) {
        const name = frame.callFrame.functionName;
        if (name === "(idle)") found = { stage: "(idle)", file: "(idle)" };
        else if (name === "(garbage collector)") found = { stage: "garbage collection", file: name };
        else if (name === "(program)") found = { stage: "V8 and native code (program)", file: name };
        else {
          const stage = this.stageOfFrame(frame.callFrame);
          if (stage) found = { stage, file: this.frameSource.get(frameKey(frame.callFrame))! };
          else if (!weak && (frame.callFrame.url.startsWith("node:") || frame.callFrame.url === "")) weak = { stage: NODE, file: frame.callFrame.url || `(native) ${name}` };
        }
      }
      const resolved = found ?? weak ?? { stage: "unattributed", file: "unattributed" };
      stageOfNode.set(node.id, resolved);
      return resolved;
    };
    const totals = new Map<string, number>();
    let at = profile.startTime;
    for (let index = 0; index < profile.samples.length; index++) {
      at += profile.timeDeltas[index] ?? 0;
      if (at < fromUs || at >= toUs) continue;
      // A sample stands for the time until the next one.
      const next = profile.timeDeltas[index + 1] ?? 0;
      const { stage, file } = stageOf(byId.get(profile.samples[index]!)!);
      if (stage === "(idle)") continue;
      const key = by === "stage" ? stage : file;
      totals.set(key, (totals.get(key) ?? 0) + next / 1000);
    }
    return totals;
  }

  private stageOfFrame(frame: CallFrame): string | null {
    if (!frame.url || frame.url.startsWith("node:")) return null;
    const key = frameKey(frame);
    if (this.frameStage.has(key)) return this.frameStage.get(key)!;
    const source = this.sourceOf(frame);
    const stage = STAGES.find(([, test]) => test.test(source))?.[0] ?? null;
    this.frameStage.set(key, stage);
    this.frameSource.set(key, shortSource(source));
    return stage;
  }

  /** The original file of a bundled frame (through the chunk's source map), else the frame's own path. */
  private sourceOf(frame: CallFrame): string {
    const file = frame.url.startsWith("file://") ? fileURLToPath(frame.url) : frame.url;
    if (!file.includes("/.next/")) return file;
    if (!this.maps.has(file)) {
      const mapFile = `${file}.map`;
      this.maps.set(file, existsSync(mapFile) ? AnyMap(readFileSync(mapFile, "utf8")) : null);
    }
    const map = this.maps.get(file);
    if (!map || frame.lineNumber < 0) return file;
    const original = originalPositionFor(map, { line: frame.lineNumber + 1, column: Math.max(frame.columnNumber, 0) });
    return original.source ?? file;
  }
}
