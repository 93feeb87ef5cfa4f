import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import type { SetUpKind } from "../helpers/set-up-time";
import { startProcessCpuSampler } from "./process-cpu-sampler";

type SetUpEntry = { kind: SetUpKind; ms: number; file: string };
type FileRow = { file: string; project: string; tests: number; ms: number; setUp: Partial<Record<SetUpKind, { count: number; ms: number }>> };

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

  onInit(): void {
    const dir = mkdtempSync(path.join(tmpdir(), "test-profile-"));
    this.log = path.join(dir, "set-up.jsonl");
    writeFileSync(this.log, "");
    // The workers and the run's set-up inherit it (they are forked from this process later).
    process.env.TEST_PROFILE_LOG = this.log;
    this.started = Date.now();
    this.cpu = startProcessCpuSampler();
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
      rows.set(file, { file, project: testModule.project.name, tests, ms: testModule.diagnostic().duration, setUp: {} });
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
