import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import type { SetUpKind } from "../helpers/set-up-time";
import { startProcessCpuSampler } from "./process-cpu-sampler";

type SetUpEntry = { kind: SetUpKind; ms: number; file: string };
type FileRow = {
  file: string;
  project: string;
  /** The project's group (`sequence.groupOrder`): groups run one after the other. */
  group: number;
  tests: number;
  ms: number;
  /** When the file started and ended, in ms from the run's start (when vitest reported them). */
  startMs?: number;
  endMs?: number;
  setUp: Partial<Record<SetUpKind, { count: number; ms: number }>>;
};

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * `npm run test:profile [-- vitest filters]`: where the time goes. Prints the slowest 30 test files
 * (vitest's own per-file duration: collection, hooks and tests) with the expensive set-up each did —
 * servers started, databases created, migrations run (recorded by tests/helpers/set-up-time.ts) —
 * and the run's totals by kind, then the CPU the run's processes used by kind (./process-cpu-sampler.ts).
 * A markdown table, for docs/testing.md; the full rows go to a JSON file.
 */
export default class ProfileReporter implements Reporter {
  private log = "";
  private started = 0;
  private cpu: ReturnType<typeof startProcessCpuSampler> | undefined;
  private spans = new Map<string, { startMs: number; endMs?: number }>();

  onInit(): void {
    const dir = mkdtempSync(path.join(tmpdir(), "test-profile-"));
    this.log = path.join(dir, "set-up.jsonl");
    writeFileSync(this.log, "");
    // The workers and the run's set-up inherit it (they are forked from this process later).
    process.env.TEST_PROFILE_LOG = this.log;
    this.started = Date.now();
    this.cpu = startProcessCpuSampler();
  }

  // Queued is when a worker takes the file, before it imports it: the file's whole time in the worker.
  onTestModuleQueued(testModule: TestModule): void {
    this.spans.set(testModule.moduleId, { startMs: Date.now() - this.started });
  }

  onTestModuleEnd(testModule: TestModule): void {
    const span = this.spans.get(testModule.moduleId);
    if (span) span.endMs = Date.now() - this.started;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const wallMs = Date.now() - this.started;
    const entries: SetUpEntry[] = readFileSync(this.log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SetUpEntry);
    const rows = new Map<string, FileRow>();
    let testCount = 0;
    for (const testModule of testModules) {
      const file = path.relative(process.cwd(), testModule.moduleId);
      const tests = [...testModule.children.allTests()].length;
      testCount += tests;
      const span = this.spans.get(testModule.moduleId);
      rows.set(file, { file, project: testModule.project.name, group: testModule.project.config.sequence.groupOrder, tests, ms: testModule.diagnostic().duration, ...span, setUp: {} });
    }
    const totals: Partial<Record<SetUpKind, { count: number; ms: number }>> = {};
    for (const entry of entries) {
      const add = (into: FileRow["setUp"]) => {
        const slot = (into[entry.kind] ??= { count: 0, ms: 0 });
        slot.count++;
        slot.ms += entry.ms;
      };
      add(totals);
      const row = rows.get(entry.file);
      if (row) add(row.setUp);
    }
    const describe = (setUp: FileRow["setUp"]) =>
      (Object.entries(setUp) as [SetUpKind, { count: number; ms: number }][])
        .map(([kind, { count, ms }]) => `${kind} ×${count} ${seconds(ms)} s`)
        .join(", ") || "—";
    const slowest = [...rows.values()].sort((a, b) => b.ms - a.ms).slice(0, 30);
    const fileMs = [...rows.values()].reduce((sum, row) => sum + row.ms, 0);
    const lines = [
      "",
      `Test profile: ${rows.size} files, ${testCount} tests, ${seconds(wallMs)} s wall, ${seconds(fileMs)} s of file time (summed over workers).`,
      "",
      "| # | File | Project | Tests | Time (s) | Set-up in the file |",
      "|---|------|---------|------:|---------:|--------------------|",
      ...slowest.map((row, i) => `| ${i + 1} | ${row.file} | ${row.project} | ${row.tests} | ${seconds(row.ms)} | ${describe(row.setUp)} |`),
      "",
      "Set-up, whole run (inside the files' times above, except the run's own):",
      ...(Object.entries(totals) as [SetUpKind, { count: number; ms: number }][]).map(
        ([kind, { count, ms }]) => `  ${kind}: ${count} × (${seconds(ms / count)} s average) = ${seconds(ms)} s`,
      ),
      ...(entries.some((entry) => entry.file === "(run set-up)") ? [`  of which the run's own set-up: ${describe(entries.filter((e) => e.file === "(run set-up)").reduce<FileRow["setUp"]>((into, e) => {
        const slot = (into[e.kind] ??= { count: 0, ms: 0 });
        slot.count++;
        slot.ms += e.ms;
        return into;
      }, {}))}`] : []),
    ];
    for (const group of [...new Set([...rows.values()].map((row) => row.group))].sort((a, b) => a - b)) {
      lines.push("", `Group ${group}:`, ...describeOccupancy([...rows.values()].filter((row) => row.group === group)));
    }
    const { byKind: cpuByKind, others } = this.cpu?.stop() ?? { byKind: [], others: [] };
    lines.push(
      "",
      `CPU by process, whole run (${seconds(cpuByKind.reduce((sum, [, ms]) => sum + ms, 0))} s in all):`,
      ...cpuByKind.map(([kind, ms]) => `  ${seconds(ms)} s  ${kind}`),
      // What the other processes were, the largest ten (SMTP and Stripe stand-ins, scripts, tools).
      ...(others.length > 0 ? ["", "  The other processes, by command:", ...others.slice(0, 10).map(([command, ms]) => `    ${seconds(ms)} s  ${command || "(unnamed)"}`)] : []),
      "",
    );
    const json = path.join(path.dirname(this.log), "profile.json");
    writeFileSync(json, JSON.stringify({ wallMs, testCount, files: [...rows.values()], setUp: entries, cpuByKind, otherCpuByCommand: others }, null, 2));
    lines.push(`All rows: ${json}`, "");
    console.log(lines.join("\n"));
  }
}

/**
 * How many files of one group ran at once: the time spent with 0, 1, 2… files running, and the
 * group's last stretch with fewer files than at its busiest (a tail that leaves a worker idle).
 */
function describeOccupancy(rows: FileRow[]): string[] {
  const edges = rows
    .flatMap((row) => (row.startMs === undefined || row.endMs === undefined ? [] : [{ at: row.startMs, delta: 1 }, { at: row.endMs, delta: -1 }]))
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  const first = edges[0]?.at;
  if (first === undefined) return [];
  const msByCount = new Map<number, number>();
  let running = 0;
  let busiest = 0;
  let previous = first;
  // The last time the count fell from its busiest: every later drop from the busiest level comes
  // after that level was reached, so one pass finds it.
  let lastFullEnd = first;
  for (const edge of edges) {
    msByCount.set(running, (msByCount.get(running) ?? 0) + edge.at - previous);
    if (edge.delta < 0 && running === busiest) lastFullEnd = edge.at;
    running += edge.delta;
    busiest = Math.max(busiest, running);
    previous = edge.at;
  }
  const lastToEnd = rows
    .filter((row) => row.endMs !== undefined)
    .sort((a, b) => (b.endMs ?? 0) - (a.endMs ?? 0))
    .slice(0, 3)
    .map((row) => `${row.file} (${seconds(row.startMs ?? 0)}–${seconds(row.endMs ?? 0)} s)`);
  return [
    `  From ${seconds(first)} s to ${seconds(previous)} s of the run. Files running at once, time at each count: ${[...msByCount.entries()].sort(([a], [b]) => a - b).map(([count, ms]) => `${count}: ${seconds(ms)} s`).join(", ")}.`,
    `  The files' last ${seconds(previous - lastFullEnd)} s ran with fewer than ${busiest} at once (the tail); the last to end: ${lastToEnd.join(", ")}.`,
  ];
}
