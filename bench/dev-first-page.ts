/**
 * Benchmark: dev mode's first page on a fresh clone (issue 15, item 6: "in dev mode on a fresh
 * clone the first page renders within 15 s"). Prints figures only.
 *
 *   npm run bench:dev -- --dirs /tmp/clone-a,/tmp/clone-b [--rounds 3] [--port 3301] [--keep-data]
 *
 * Each --dirs entry is a checkout that has had `npm install` (e.g. a fresh `git clone` of a branch
 * and of main, to compare them). Rounds alternate between the checkouts, so that both see the same
 * load on a shared machine. Before every run the checkout's `.next/` (Turbopack's output and cache)
 * and `.data/` (the embedded database) are removed, which puts it back in the state of a fresh
 * clone after `npm install`; --keep-data keeps `.data/` (a restart with a seeded database).
 *
 * A run starts `npm run dev -- -p <port>` without DATABASE_URL, asks for `GET /signin` (one request
 * at a time, again 250 ms after a refused connection) and reports, from the start of the command:
 * when the port accepted a connection, when `/signin` first answered 200, and when the seeded
 * login ("sign in as …") was printed; then the first sign-in with that login as the sign-in form
 * makes it (next-auth's CSRF token and credentials callback) through to the dashboard's first page
 * answering 200 (both compiled on first use), timed from the moment it starts; and the CPU time the
 * process tree had used by each point (user + system of every process in the run's process group,
 * from /proc: the figure that survives a loaded machine). The load average is printed beside each run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { signInWithPassword } from "@/tests/helpers/sign-in";

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

const DIRS = (option("dirs") ?? process.cwd()).split(",").map((dir) => path.resolve(dir));
const ROUNDS = Number(option("rounds") ?? 1);
const PORT = Number(option("port") ?? 3301);
const KEEP_DATA = process.argv.includes("--keep-data");
/** --verbose: print each run's output, every line stamped with its time from the start. */
const VERBOSE = process.argv.includes("--verbose");
/** A run that has not printed its login by then is reported as such. */
const TIMEOUT_MS = 180_000;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** CPU time (ms) of every live process in a process group (the dev server and its workers). */
function groupCpuMs(pgid: number): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      // pgrp is field 5 of stat; utime, stime, cutime, cstime fields 14–17 (clock ticks, 100/s).
      if (Number(fields[2]) !== pgid) continue;
      total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** The environment of `npm run dev` on a fresh clone: no database URL, no NODE_ENV of ours. */
function devEnv(): Record<string, string | undefined> {
  const { NODE_ENV: _nodeEnv, ...env } = process.env;
  return { ...env, DATABASE_URL: "", PORT: String(PORT) };
}

type Run = {
  dir: string;
  listenS?: number;
  pageS?: number;
  pageCpuS?: number;
  loginS?: number;
  loginCpuS?: number;
  /** The first sign-in through to the dashboard's first page, from its start (s), and its CPU (s). */
  signInS?: number;
  signInCpuS?: number;
  load: string;
};

/** Signs in with the printed login and follows the redirects to the dashboard's first page (200). */
async function firstSignIn(base: string, output: string): Promise<void> {
  const [, email, password] = /sign in as (\S+) \/ ([^)\s]+)\)/.exec(output) ?? [];
  if (!email || !password) throw new Error(`no login printed:\n${output}`);
  const cookie = await signInWithPassword(base, email, password);
  const response = await fetch(`${base}/`, { headers: { Cookie: cookie }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  await response.arrayBuffer();
  if (response.status !== 200 || new URL(response.url).pathname.startsWith("/signin")) {
    throw new Error(`the dashboard answered ${response.status} at ${response.url} after signing in`);
  }
}

async function runOnce(dir: string): Promise<Run> {
  rmSync(path.join(dir, ".next"), { recursive: true, force: true });
  if (!KEEP_DATA) rmSync(path.join(dir, ".data"), { recursive: true, force: true });
  const load = os.loadavg()[0]!.toFixed(1);
  const started = performance.now();
  const seconds = () => Number(((performance.now() - started) / 1000).toFixed(1));
  let output = "";
  const child: ChildProcess = spawn("npm", ["run", "dev", "--", "-p", String(PORT)], {
    cwd: dir,
    env: devEnv() as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pgid = child.pid!;
  const stamp = (chunk: Buffer) => {
    output += VERBOSE ? chunk.toString().replace(/^(?=.)/gm, `[${seconds().toFixed(1)}] `) : chunk.toString();
  };
  child.stdout?.on("data", stamp);
  child.stderr?.on("data", stamp);
  const run: Run = { dir, load };
  try {
    while (run.pageS === undefined && seconds() * 1000 < TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`npm run dev exited:\n${output}`);
      try {
        const response = await fetch(`http://127.0.0.1:${PORT}/signin`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
        run.listenS ??= seconds();
        await response.arrayBuffer();
        if (response.status === 200) {
          run.pageS = seconds();
          run.pageCpuS = groupCpuMs(pgid) / 1000;
        }
      } catch (error) {
        if (VERBOSE) output += `[${seconds().toFixed(1)}] (bench) GET /signin: ${(error as Error).cause ?? error}\n`;
        await sleep(250);
      }
    }
    while (run.loginS === undefined && seconds() * 1000 < TIMEOUT_MS) {
      if (/sign in as /.test(output)) {
        run.loginS = seconds();
        run.loginCpuS = groupCpuMs(pgid) / 1000;
      } else await sleep(50);
    }
    if (run.loginS !== undefined) {
      const from = seconds();
      const cpuFrom = groupCpuMs(pgid);
      await firstSignIn(`http://127.0.0.1:${PORT}`, output);
      run.signInS = Number((seconds() - from).toFixed(1));
      run.signInCpuS = (groupCpuMs(pgid) - cpuFrom) / 1000;
    }
  } finally {
    // The whole process group this run started: npm, next dev and its server process.
    try {
      process.kill(-pgid, "SIGTERM");
    } catch {
      // already gone
    }
    for (let i = 0; i < 50 && child.exitCode === null; i++) await sleep(100);
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // all gone
    }
  }
  if (VERBOSE) console.log(output);
  return run;
}

const runs: Run[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const dir of DIRS) {
    const run = await runOnce(dir);
    runs.push(run);
    console.log(
      `round ${round} ${dir}: port ${run.listenS ?? "-"} s, /signin 200 at ${run.pageS ?? "never"} s (CPU ${run.pageCpuS?.toFixed(1) ?? "-"} s), ` +
        `login printed at ${run.loginS ?? "never"} s (CPU ${run.loginCpuS?.toFixed(1) ?? "-"} s), ` +
        `first sign-in to the dashboard ${run.signInS ?? "-"} s (CPU ${run.signInCpuS?.toFixed(1) ?? "-"} s), load ${run.load}`,
    );
  }
}
for (const dir of DIRS) {
  const mine = runs.filter((run) => run.dir === dir);
  const list = (pick: (run: Run) => number | undefined) => mine.map((run) => pick(run)?.toFixed(1) ?? "-").join(", ");
  console.log(`\n${dir}\n  /signin 200 (s): ${list((r) => r.pageS)}\n  CPU by then (s): ${list((r) => r.pageCpuS)}`);
  console.log(`  login printed (s): ${list((r) => r.loginS)}\n  CPU by then (s): ${list((r) => r.loginCpuS)}`);
  console.log(`  first sign-in to the dashboard (s): ${list((r) => r.signInS)}\n  its CPU (s): ${list((r) => r.signInCpuS)}`);
}
