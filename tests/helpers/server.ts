import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { apiRoot } from "./api-client";
import { procStat } from "./proc-stat";
import { recordSetUpTime } from "./set-up-time";

export const PROJECT_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

/** Ports this process has handed out: the kernel may offer a just-closed port again, and two apps started at once must not get the same one. */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.unref();
      server.on("error", reject);
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** CPU time (user + system, ms) a process has used so far: a figure that survives a loaded machine. */
export function processCpuMs(pid: number): number {
  return procStat(pid).cpuMs;
}

export type RunningApp = {
  baseUrl: string;
  /** The `next start` process (benchmarks read its CPU time, tests its memory, from /proc). */
  pid: number;
  output: () => string;
  /** Waits until the app's output matches (the embedded database prints its login once seeded). */
  waitForOutput: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  stop: () => Promise<void>;
  /**
   * SIGTERM, then waits for the process to exit however long that takes (the test's timeout bounds
   * it): for tests of the shutdown itself, where `stop()`'s kill after its grace would hide a hang.
   */
  terminate: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: the process dies at once, mid-whatever, as in a crash. */
  kill: () => Promise<void>;
};

/**
 * The servers this test file started that have not exited yet. A test that fails or times out may
 * never reach its `stop()`: tests/setup/stop-leftovers.ts stops these after the file, and this
 * process kills them if it exits first; what still escapes is caught at the end of the run
 * (tests/setup/process-guard.ts).
 */
const runningChildren = new Set<ChildProcess>();

process.once("exit", () => {
  for (const child of runningChildren) child.kill("SIGKILL");
});

/** SIGKILLs every server this file started and did not stop; returns their command lines. */
export async function killLeftoverServers(): Promise<string[]> {
  const leftovers = [...runningChildren];
  await Promise.all(
    leftovers.map(async (child) => {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      if (child.exitCode === null && child.signalCode === null) await exited;
    }),
  );
  return leftovers.map((child) => child.spawnargs.join(" "));
}

/** Starts the built app (`next start`) with the given environment and waits until it answers. */
export function startApp(env: Record<string, string | undefined>): Promise<RunningApp> {
  return runServer("start", env);
}

/**
 * Starts `next dev` on this checkout (its own `.next/dev`, beside the production build) and waits
 * until it answers. Pages compile on their first request, as on a developer's machine. Next.js
 * allows one dev server per checkout: none may be running here.
 */
export function startDevApp(env: Record<string, string | undefined>): Promise<RunningApp> {
  // `next dev` sets NODE_ENV itself (a test runner's `test` would make it warn and misbehave).
  return runServer("dev", { NODE_ENV: undefined, ...env });
}

/**
 * The app keeps idle connections 65 s (Node's default is 5 s), far beyond the test clients' 1 s
 * (tests/setup/worker-env.ts), so a client never sends on a socket the app is closing.
 */
const KEEP_ALIVE_MS = "65000";

/**
 * The seconds a pooled database connection of the tests' processes (the apps, the workers' own
 * pools) may sit idle, against the service's 60: two runs side by side start up to a dozen apps
 * of up to 17 connections each, and kept idle for a minute they filled PostgreSQL's default 100
 * `max_connections` ("sorry, too many clients already", 2026-12-02). Busy pools are unchanged.
 */
export const TEST_DATABASE_IDLE_SECONDS = "5";

/** Where the app writes its V8 coverage, under `npm run test:coverage` only. */
const APP_COVERAGE_DIR = process.env.APP_COVERAGE_DIR;
/**
 * How long a stopping app may take before it is killed: past the requests in flight, its clean
 * shutdown waits up to 5 s for the request log's last rows (SHUTDOWN_FLUSH_MS in
 * instrumentation-node.ts), so a grace of the same 5 s raced that flush on a busy machine; writing
 * its coverage (tens of MB of JSON) takes seconds more, and a killed app writes none. A healthy
 * app is gone long before either bound (51 stops of a whole run: 0.4 s on average); the grace is
 * spent in full only by an app that does not exit on SIGTERM (`server:stop-killed` in
 * `npm run test:profile`; none since the app bounds its own drain, `SHUTDOWN_DRAIN_MS`).
 */
const STOP_GRACE_MS = APP_COVERAGE_DIR ? 60_000 : 8_000;

async function runServer(mode: "start" | "dev", env: Record<string, string | undefined>): Promise<RunningApp> {
  const port = await freePort();
  let output = "";
  // APP_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the app in benchmarks;
  // Node refuses --cpu-prof in NODE_OPTIONS.
  const nodeArgs = (process.env.APP_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // APP_ROOT (benchmarks only) starts another checkout's build, e.g. a baseline to compare with.
  const root = process.env.APP_ROOT ?? PROJECT_ROOT;
  // APP_SERVER=standalone (benchmarks only) runs a build made with `output: "standalone"`
  // (node .next/standalone/server.js) instead of `next start`.
  const standalone = mode === "start" && process.env.APP_SERVER === "standalone";
  const child: ChildProcess = spawn(
    process.execPath,
    standalone
      ? [...nodeArgs, path.join(root, ".next/standalone/server.js")]
      : [...nodeArgs, path.join(root, "node_modules/next/dist/bin/next"), mode, "-p", String(port), "-H", "127.0.0.1", ...(mode === "start" ? ["--keepAliveTimeout", KEEP_ALIVE_MS] : [])],
    {
      cwd: standalone ? path.join(root, ".next/standalone") : root,
      env: {
        // Node's module compile cache (V8 code cache on disk), in the build's own folder (`next build`
        // empties .next but its cache): a server after the first compiles none of the build's chunks
        // again, about a fifth of each start's CPU (docs/testing.md, "Shared set-up"). A server that
        // stops (SIGTERM) writes what it compiled; one killed writes nothing, and the others' stays.
        NODE_COMPILE_CACHE: path.join(root, ".next", "node-compile-cache"),
        DATABASE_IDLE_SECONDS: TEST_DATABASE_IDLE_SECONDS,
        ...process.env,
        NEXTAUTH_URL: `http://127.0.0.1:${port}`,
        ...env,
        PORT: String(port),
        ...(standalone ? { HOSTNAME: "127.0.0.1", KEEP_ALIVE_TIMEOUT: KEEP_ALIVE_MS } : {}),
        // `npm run test:coverage`: the app writes V8's coverage of what it ran when it stops
        // (scripts/test-coverage.ts maps the build's chunks back to lib/ by their source maps).
        ...(APP_COVERAGE_DIR ? { NODE_V8_COVERAGE: APP_COVERAGE_DIR } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  runningChildren.add(child);
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => runningChildren.delete(child));
  const startedAt = Date.now();

  const baseUrl = `http://127.0.0.1:${port}`;
  // `next dev` compiles the probed route first: on a loaded machine that takes minutes.
  const startMs = mode === "dev" ? 300_000 : 60_000;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The app exited during start:\n${output}`);
    try {
      // An unknown API path: the API's route (every operation, lib/server/routes.ts) is loaded when
      // it answers its 404 problem, which reads no database (a test may start the app without one).
      // Not /openapi.json: building the document is a second of CPU no test start needs.
      const response = await fetch(`${apiRoot(baseUrl)}/server-start-probe`);
      await response.arrayBuffer();
      if (response.status === 404 && response.headers.get("content-type")?.startsWith("application/problem+json")) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`The app did not answer within ${startMs / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  recordSetUpTime(mode === "start" ? "server:start" : "server:dev", Date.now() - startedAt);
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    waitForOutput: async (pattern, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`The app never printed ${pattern}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      return { code: child.exitCode, signal: child.signalCode };
    },
    stop: async () => {
      if (child.exitCode === null) {
        const stopping = Date.now();
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
        // Past the grace, killed, and waited for: a stop that returned before the process was gone
        // left it to the leftovers check (tests/setup/stop-leftovers.ts), which reported it as a leak.
        const killed = child.exitCode === null && child.signalCode === null;
        if (killed) {
          child.kill("SIGKILL");
          await exited;
        }
        recordSetUpTime(killed ? "server:stop-killed" : "server:stop", Date.now() - stopping);
      }
    },
  };
}
