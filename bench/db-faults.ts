import "./limits";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { ADMIN_DATABASE_URL } from "@/tests/helpers/database";
import { isolatedDatabase } from "@/tests/helpers/isolated-database";
import { startApp, type RunningApp } from "@/tests/helpers/server";
import { TcpProxy } from "@/tests/helpers/tcp-proxy";
import { benchEnvironment, option } from "./http";

/**
 * `npm run bench:db-faults [-- --seconds 12 --probes 40]`: what the API does during a database
 * fault and how soon it serves after the fault ends. One app on a fresh database, its connections
 * through a TCP proxy on loopback. For each fault: `GET /api/health` latency while it lasts (p50,
 * p99, max over `--probes` calls), the slowest `GET /api/customers` answer and the statuses seen,
 * then the time from the database being healthy again to the first 200 (polled every 25 ms).
 * The floor: the same health call with the database healthy.
 */
benchEnvironment();
const seconds = Number(option("seconds", "12"));
const probes = Number(option("probes", "40"));

const database = await isolatedDatabase("bench_faults");
const target = new URL(database.url);
const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
const viaProxy = new URL(database.url);
viaProxy.port = String(proxy.port);
const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
let app: RunningApp | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function timedGet(path: string, token?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${app!.baseUrl}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

async function healthLatency(): Promise<{ p50: number; p99: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < probes; i++) times.push((await timedGet("/api/health")).ms);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? NaN };
}

/** Time from `healed` until /api/customers first answers 200. */
async function recovery(healed: number): Promise<number> {
  for (;;) {
    if ((await timedGet("/api/customers?limit=1", database.token)).status === 200) return performance.now() - healed;
    if (performance.now() - healed > 60_000) return Infinity;
    await sleep(25);
  }
}

const terminate = () => admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [database.name]);

type Fault = { name: string; start: () => Promise<void>; end: () => Promise<void> };
const FAULTS: Fault[] = [
  { name: "refused (nothing listens), open connections reset", start: () => proxy.cut(), end: () => proxy.restore() },
  { name: "silent stall (accepts, answers nothing)", start: async () => proxy.stall(), end: () => proxy.restore() },
  {
    name: "stall, then open connections reset (the queue-bound cancel)",
    start: async () => {
      proxy.stall();
      await sleep(2_500);
      proxy.reset();
    },
    end: () => proxy.restore(),
  },
  {
    name: "ALLOW_CONNECTIONS false, backends terminated",
    start: async () => {
      await admin.unsafe(`alter database "${database.name}" allow_connections false`);
      await terminate();
    },
    end: async () => {
      await admin.unsafe(`alter database "${database.name}" allow_connections true`);
    },
  },
];

try {
  app = await startApp({ DATABASE_URL: viaProxy.toString(), DATABASE_POOL_SIZE: "4" });
  // Warm: the pages, the token cache, the pool.
  for (let i = 0; i < 20; i++) await timedGet("/api/customers?limit=1", database.token);
  const floor = await healthLatency();
  console.log(`Database faults, ${seconds} s each; health floor (database healthy): p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms\n`);
  console.log("| fault | health p50 / p99 / max during | slowest /customers during | statuses during | first 200 after healthy |");
  console.log("|---|---|---|---|---|");
  for (const fault of FAULTS) {
    await fault.start();
    const faultEnds = performance.now() + seconds * 1000;
    const statuses = new Map<number, number>();
    let slowest = 0;
    // Requests through the whole fault, several at once, as traffic would keep coming.
    const traffic = (async () => {
      while (performance.now() < faultEnds) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => timedGet("/api/customers?limit=1", database.token)));
        for (const { status, ms } of answers) {
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          slowest = Math.max(slowest, ms);
        }
      }
    })();
    const health = await healthLatency();
    await traffic;
    await fault.end();
    const after = await recovery(performance.now());
    const seen = [...statuses].map(([status, count]) => `${status}×${count}`).join(", ");
    console.log(
      `| ${fault.name} | ${health.p50.toFixed(1)} / ${health.p99.toFixed(1)} / ${health.max.toFixed(1)} ms | ${(slowest / 1000).toFixed(2)} s | ${seen} | ${after.toFixed(0)} ms |`,
    );
    await sleep(1_000);
  }
} finally {
  await app?.stop();
  await proxy.cut();
  await admin.unsafe(`alter database "${database.name}" allow_connections true`).catch(() => {});
  await admin.end();
  await database.drop();
}
