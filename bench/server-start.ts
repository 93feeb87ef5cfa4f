/**
 * Benchmark: how much a production server's start costs (run `npm run build` first).
 *
 *   npm run bench:server-start -- [--rounds 4]
 *
 * Starts the built app (`next start`, through the tests' helper, tests/helpers/server.ts) until it
 * is ready, `--rounds` times with Node's module compile cache off (NODE_DISABLE_COMPILE_CACHE=1)
 * and on (the helper's `.next/node-compile-cache`, filled by one start and stop before the
 * rounds), alternated, and prints for each the median wall time to ready and the server's CPU by
 * then (utime + stime of /proc/<pid>/stat). The tests start a server some 64 times a run
 * (docs/testing.md, "Shared set-up"). Uses a fresh database on the tests' PostgreSQL.
 */
import "./limits";
import { performance } from "node:perf_hooks";
import { processCpuMs, startApp } from "@/tests/helpers/server";
import { benchDatabase, benchEnvironment, log, median, option } from "./http";

const ROUNDS = Number(option("rounds", "4"));

async function startOnce(env: Record<string, string | undefined>): Promise<{ wallMs: number; cpuS: number }> {
  const started = performance.now();
  const app = await startApp(env);
  const wallMs = performance.now() - started;
  const cpuS = processCpuMs(app.pid) / 1000;
  // A stop (SIGTERM) lets the server write its compile cache.
  await app.stop();
  return { wallMs, cpuS };
}

async function main(): Promise<void> {
  benchEnvironment();
  const { url, cleanUp } = await benchDatabase("bench_server_start");
  try {
    const off = { DATABASE_URL: url, NODE_DISABLE_COMPILE_CACHE: "1" };
    const on = { DATABASE_URL: url };
    // Fills the cache for this build, as the run's first server does.
    await startOnce(on);
    const results: Record<"off" | "on", { wallMs: number; cpuS: number }[]> = { off: [], on: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, env] of [["off", off], ["on", on]] as const) {
        const result = await startOnce(env);
        results[name].push(result);
        log(`${name}: ready in ${result.wallMs.toFixed(0)} ms, ${result.cpuS.toFixed(2)} s of CPU`);
      }
    }
    console.log("\n| compile cache | starts | median ms to ready | median server CPU s |\n|---|---|---|---|");
    for (const name of ["off", "on"] as const) {
      console.log(`| ${name} | ${results[name].length} | ${median(results[name].map((result) => result.wallMs)).toFixed(0)} | **${median(results[name].map((result) => result.cpuS)).toFixed(2)}** |`);
    }
  } finally {
    await cleanUp();
  }
}

await main();
