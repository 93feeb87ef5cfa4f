import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * `npx tsx scripts/cpu-profile-summary.ts <directory>`: where the CPU of the .cpuprofile files in a
 * directory went (API_CPU_PROF and PROPERTY_CPU_PROF write them: docs/testing.md), as self time by
 * package (node_modules/<package>), Node's own module, or project file, then by function. Idle time
 * is left out. For the apps' profiles by stage of a request, see bench/cpu-stages.ts.
 */

type CallFrame = { functionName: string; url: string; lineNumber: number };
type CpuProfile = { nodes: { id: number; callFrame: CallFrame }[]; samples: number[]; timeDeltas: number[] };

const directory = process.argv[2];
if (!directory) throw new Error("usage: npx tsx scripts/cpu-profile-summary.ts <directory of .cpuprofile files>");

const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
let totalUs = 0;
const add = (into: Map<string, number>, key: string, us: number) => into.set(key, (into.get(key) ?? 0) + us);

function placeOf({ url, functionName }: CallFrame): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/.][^/]*)/.exec(url);
  if (dependency) return `package ${dependency[1]}`;
  if (url.startsWith("node:")) return url;
  if (url.startsWith("file://") || url.startsWith("/")) return path.relative(process.cwd(), url.replace(/^file:\/\//, "").replace(/\?.*$/, ""));
  return functionName || "(native)";
}

for (const file of readdirSync(directory).filter((name) => name.endsWith(".cpuprofile"))) {
  const profile = JSON.parse(readFileSync(path.join(directory, file), "utf8")) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id)!;
    if (frame.functionName === "(idle)") return;
    const us = profile.timeDeltas[index] ?? 0;
    totalUs += us;
    add(byPlace, placeOf(frame), us);
    add(byFunction, `${frame.functionName || "(anonymous)"} ${placeOf(frame)}:${frame.lineNumber + 1}`, us);
  });
}

const top = (from: Map<string, number>, count: number) =>
  [...from]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, us]) => `${(us / 1e6).toFixed(2).padStart(8)} s ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${key}`);
console.log([`${(totalUs / 1e6).toFixed(1)} s on CPU (idle left out)`, "", "By package, Node module or file:", ...top(byPlace, 30), "", "By function:", ...top(byFunction, 30)].join("\n"));
