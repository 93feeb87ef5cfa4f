/**
 * Benchmark: what a command-line script costs before and after its own work, run through tsx (as
 * the scripts were) and through scripts/run.mjs (one cached esbuild bundle, as they are now).
 *
 *   npm run bench:scripts -- [--rounds 6]
 *
 * On a fresh migrated database, once each before the rounds (the seed's organization exists, the
 * runner's bundles are built), then `--rounds` times, the two ways alternated: `npm run seed --
 * --json`, `npm run db:migrate` (nothing to apply), `npm run user:create` without arguments (it
 * loads lib/ and prints its usage), the SDK's stale check and the import graph's check. Prints
 * the median wall time and the median CPU of the script's processes (this process's children's
 * utime + stime, /proc/self/stat: tsx runs the script in a child of its own, counted too). The tests run these scripts some 30 times a run
 * (docs/testing.md, "The command-line scripts").
 */
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { procStat } from "@/tests/helpers/proc-stat";
import { benchDatabase, log, median, option } from "./http";

const ROUNDS = Number(option("rounds", "6"));

const SCRIPTS = [
  { name: "seed -- --json", file: "scripts/seed.ts", args: ["--json"] },
  { name: "db:migrate", file: "scripts/migrate.ts", args: [] },
  { name: "user:create (usage)", file: "scripts/user-create.ts", args: [] },
  { name: "sdk:generate -- --check", file: "scripts/sdk-generate.ts", args: ["--check"] },
  { name: "graph:check", file: "scripts/import-graph.ts", args: [] },
];
const WAYS = {
  tsx: (file: string) => ["node_modules/tsx/dist/cli.mjs", file],
  "scripts/run.mjs": (file: string) => ["scripts/run.mjs", file],
};
type Way = keyof typeof WAYS;

/** The CPU seconds of this process's waited-for children (and theirs). */
const childrenCpuSeconds = () => procStat("self").childrenCpuMs / 1000;

function runOnce(way: Way, script: (typeof SCRIPTS)[number], env: NodeJS.ProcessEnv): { wallMs: number; cpuS: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(process.execPath, [...WAYS[way](script.file), ...script.args], { env, encoding: "utf8" });
  const wallMs = performance.now() - started;
  // user:create without arguments exits 1 with its usage; anything else is a broken run.
  if (result.status !== 0 && !/^Usage: /m.test(result.stderr)) throw new Error(`${way} ${script.file} failed:\n${result.stderr}`);
  return { wallMs, cpuS: childrenCpuSeconds() - cpuBefore };
}

async function main(): Promise<void> {
  const { url, cleanUp } = await benchDatabase("bench_scripts");
  try {
    const env = { ...process.env, DATABASE_URL: url };
    for (const script of SCRIPTS) for (const way of Object.keys(WAYS) as Way[]) runOnce(way, script, env);
    const rows: string[] = [];
    for (const script of SCRIPTS) {
      const results: Record<Way, { wallMs: number; cpuS: number }[]> = { tsx: [], "scripts/run.mjs": [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const way of Object.keys(WAYS) as Way[]) results[way].push(runOnce(way, script, env));
      }
      log(`${script.name}: done`);
      for (const way of Object.keys(WAYS) as Way[]) {
        rows.push(`| ${script.name} | ${way} | ${ROUNDS} | ${median(results[way].map((r) => r.wallMs)).toFixed(0)} | **${median(results[way].map((r) => r.cpuS)).toFixed(2)}** |`);
      }
    }
    console.log(["", "| script | way | runs | median wall ms | median CPU s |", "|---|---|---|---|---|", ...rows].join("\n"));
  } finally {
    await cleanUp();
  }
}

await main();
