/**
 * Benchmark: webhook delivery under load (issue 11). Prints figures only.
 *
 *   npm run build                          (once: the production build)
 *   npm run bench:webhooks [-- --burst-seconds 20 --backlog 20000 --slow-backlog 2000 --only 2,3]
 *
 * Scenarios, each on a fresh PostgreSQL database and `next start` (embedded driver):
 *  1. raw: signed HTTPS POSTs from this process to the loopback receiver (the floor the driver is
 *     compared with: same machine, same receiver, same run);
 *  2. one-process delivery rate: a backlog of due deliveries over 10 endpoints, drained by one app;
 *  3. fan-out 10: POST /api/customers as fast as 16 clients go for --burst-seconds, 10 endpoints
 *     subscribed; event→receiver latency (POST start → arrival) p50/p99 and the backlog's drain time;
 *  4. isolation: account A's endpoint hangs (30 s deadline) with --slow-backlog due deliveries;
 *     account B writes 20 customers/s for 15 s; B's event→receiver p50/p99;
 *  5. two instances: the same backlog as 2, drained by two apps on one database; duplicates.
 *  6. slow receivers: 8000 deliveries over 40 endpoints answering after 200 ms, drained by one app
 *     then by two (each process keeps at most WEBHOOK_MAX_IN_FLIGHT attempts open, so here a
 *     second instance adds capacity instead of sharing the machine's two cores).
 * Needs the tests' PostgreSQL (TEST_ADMIN_DATABASE_URL) and openssl. Run from the project root.
 */
import "./limits";
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import postgres from "postgres";
import { signPayload } from "@/lib/webhooks/signature";
import { sendWebhook } from "@/lib/webhooks/send";
import { createFreshDatabase } from "@/tests/helpers/database";
import { Receiver, type ReceivedRequest } from "@/tests/helpers/receiver";
import { PROJECT_ROOT, processCpuMs as cpuMs, startApp, type RunningApp } from "@/tests/helpers/server";
import { installTestCertificate } from "@/tests/helpers/tls";

const run = promisify(execFile);

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number((process.argv[index + 1] ?? "").replaceAll("_", ""));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer.`);
  return value;
}

const BURST_SECONDS = option("burst-seconds", 20);
const BACKLOG = option("backlog", 20_000);
const SLOW_BACKLOG = option("slow-backlog", 2_000);
const FAN_OUT = 10;
/** `--only 2,3`: run only these scenarios (the raw rate, 1, always runs: the others are read against it). */
const ONLY = (() => {
  const index = process.argv.indexOf("--only");
  return index < 0 ? null : new Set((process.argv[index + 1] ?? "").split(",").map(Number));
})();
const runs = (scenario: number) => ONLY === null || ONLY.has(scenario);
const WRITERS = 16;
const RAW_SECONDS = 5;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const f0 = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : "-");
const s1 = (millis: number) => (Number.isFinite(millis) ? `${(millis / 1000).toFixed(2)} s` : "-");

type Seed = { secret_token: string; account_id: string; sandbox_account_id: string; sandbox_secret_token: string };
type Env = { url: string; drop: () => Promise<void>; seed: Seed; sql: postgres.Sql };

async function freshEnvironment(label: string): Promise<Env> {
  const database = await createFreshDatabase(`bench_issue11_${label}`);
  const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/seed.ts", "--json"], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: database.url },
  });
  const sql = postgres(database.url, { max: 4, onnotice: () => {} });
  return {
    url: database.url,
    seed: JSON.parse(stdout) as Seed,
    sql,
    drop: async () => {
      await sql.end({ timeout: 5 });
      await database.drop();
    },
  };
}

function client(baseUrl: string, token: string) {
  return async (apiPath: string, body?: unknown, method = "POST") => {
    const response = await fetch(`${baseUrl}/api${apiPath}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300) throw new Error(`${method} ${apiPath}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed;
  };
}

async function endpoints(post: ReturnType<typeof client>, accountId: string, urls: string[]) {
  const ids: string[] = [];
  for (const url of urls) ids.push(String((await post(`/${accountId}/webhook-endpoints`, { url, events: ["customer.created"] })).id));
  return ids;
}

/** Inserts `count` due deliveries spread over `endpointIds`, all of one existing event. */
async function insertBacklog(env: Env, accountId: string, endpointIds: string[], count: number): Promise<void> {
  const [event] = await env.sql<{ id: string }[]>`select id from events where account_id = ${accountId} limit 1`;
  await env.sql`
    insert into event_deliveries (id, account_id, event_id, webhook_endpoint_id, due_at, created)
    select 'ed_bench_' || g || '_' || md5(random()::text), ${accountId}, ${event!.id},
      (${endpointIds}::text[])[1 + g % ${endpointIds.length}], now(), now()
    from generate_series(1, ${count}) g`;
  await env.sql`select pg_notify('webhook_deliveries_due', 'bench')`;
}

/** Arrivals per delivery id and attempt; duplicates of one (delivery, attempt) are counted. */
function countArrivals(requests: ReceivedRequest[]) {
  const keys = new Set<string>();
  let duplicates = 0;
  for (const request of requests) {
    const key = `${request.headers["x-webhook-delivery-id"]}#${request.headers["x-webhook-attempt"]}`;
    if (keys.has(key)) duplicates++;
    keys.add(key);
  }
  return { distinct: keys.size, duplicates };
}

async function rawRate(receiver: Receiver): Promise<number> {
  const secret = "whsec_bench";
  const body = Buffer.from(JSON.stringify({ id: "evt_bench", object: "event", type: "customer.created", data: { object: { id: "cus_x" } } }));
  let sent = 0;
  const stopAt = performance.now() + RAW_SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const result = await sendWebhook({
        url: `${receiver.url}/raw`,
        body,
        headers: { "Content-Type": "application/json", "X-Webhook-Signature": signPayload(secret, body), "X-Webhook-Delivery-Id": `raw-${sent}` },
        timeoutMs: 30_000,
        allowPrivateNetworks: true,
      });
      if (result.status === 200) sent++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: 64 }, worker));
  return sent / ((performance.now() - started) / 1000);
}

/** Waits until `done` holds, returning when it first did (performance.now()). */
async function until(done: () => boolean, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error("timed out");
    await sleep(20);
  }
  return performance.now();
}

/**
 * CPU time of the database's server processes serving `env`'s database so far (from /proc): a
 * backend that ended is not counted, so read it while the apps still run.
 */
async function databaseCpuMs(env: Env): Promise<Map<number, number>> {
  const backends = await env.sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  const cpu = new Map<number, number>();
  for (const { pid } of backends) {
    try {
      cpu.set(pid, cpuMs(pid));
    } catch {
      // Ended between the query and the read.
    }
  }
  return cpu;
}

const receiverCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

type DrainFigures = {
  rate: number;
  duplicates: number;
  cpuPerDelivery: { app: number; database: number; receiver: number };
  /** The database's committed transactions per delivery (claims, records, …: how well they batch). */
  transactionsPerDelivery: number;
};

async function committedTransactions(env: Env): Promise<number> {
  // Statistics are flushed to the shared counters about once a second: wait for the last ones.
  await sleep(1_500);
  const [row] = await env.sql<{ n: string }[]>`select xact_commit::text as n from pg_stat_database where datname = current_database()`;
  return Number(row!.n);
}

/** A drain: `backlog` due deliveries over `endpoints` endpoints whose path is `/webhooks/<path>-…`. */
type Drain = { path: string; endpoints: number; backlog: number };
const FAST_DRAIN: Drain = { path: "drain", endpoints: FAN_OUT, backlog: BACKLOG };
/** Receivers answering after 200 ms: one process's 256 attempts in flight bound its rate, not the CPU. */
const SLOW_REPLY_MS = 200;
const SLOW_DRAIN: Drain = { path: "slow-drain", endpoints: 40, backlog: 8_000 };

async function drainRate(receiver: Receiver, env: Env, apps: number, drain: Drain = FAST_DRAIN): Promise<DrainFigures> {
  const running: RunningApp[] = [];
  try {
    for (let i = 0; i < apps; i++) running.push(await startApp({ DATABASE_URL: env.url }));
    const post = client(running[0]!.baseUrl, env.seed.secret_token);
    const prefix = `${drain.path}-${apps}-`;
    const urls = Array.from({ length: drain.endpoints }, (_, i) => `${receiver.url}/${prefix}${i}`);
    const ids = await endpoints(post, env.seed.account_id, urls);
    await post("/customers", { email: "bench@example.com" });
    const mine = () => receiver.requests.filter((request) => request.path.startsWith(`/webhooks/${prefix}`));
    await until(() => mine().length >= drain.endpoints, 30_000);
    const before = mine().length;
    const started = performance.now();
    const appCpu = () => running.reduce((sum, app) => sum + cpuMs(app.pid), 0);
    const transactionsBefore = await committedTransactions(env);
    const [appBefore, databaseBefore, receiverBefore] = [appCpu(), await databaseCpuMs(env), receiverCpuMs()];
    await insertBacklog(env, env.seed.account_id, ids, drain.backlog);
    const finished = await until(() => countArrivals(mine()).distinct >= before + drain.backlog, 300_000);
    const [appAfter, databaseAfter, receiverAfter] = [appCpu(), await databaseCpuMs(env), receiverCpuMs()];
    let database = 0;
    for (const [pid, ms] of databaseAfter) database += ms - (databaseBefore.get(pid) ?? 0);
    const transactions = (await committedTransactions(env)) - transactionsBefore;
    const per = (total: number) => total / drain.backlog;
    return {
      transactionsPerDelivery: per(transactions),
      rate: drain.backlog / ((finished - started) / 1000),
      duplicates: countArrivals(mine()).duplicates,
      cpuPerDelivery: { app: per(appAfter - appBefore), database: per(database), receiver: per(receiverAfter - receiverBefore) },
    };
  } finally {
    await Promise.all(running.map((app) => app.stop()));
  }
}

const cpuText = ({ cpuPerDelivery: cpu, transactionsPerDelivery }: DrainFigures) =>
  `CPU per delivery: app ${cpu.app.toFixed(2)} ms, database ${cpu.database.toFixed(2)} ms, receiver ${cpu.receiver.toFixed(2)} ms; ` +
  `${transactionsPerDelivery.toFixed(2)} database transactions per delivery`;

async function main(): Promise<void> {
  if (!existsSync(path.join(PROJECT_ROOT, ".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  if (!process.env.BENCH_WEBHOOKS_CHILD) {
    // Node reads NODE_EXTRA_CA_CERTS at start: this process's own sender (scenario 1) trusts the
    // receiver's certificate only if it starts with it, so run the benchmark in a child that does.
    installTestCertificate();
    const child = spawn(process.execPath, ["--import", "tsx", ...process.argv.slice(1)], {
      stdio: "inherit",
      env: { ...process.env, BENCH_WEBHOOKS_CHILD: "1" },
    });
    child.on("exit", (code) => process.exit(code ?? 1));
    return;
  }
  Object.assign(process.env, {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  });
  console.log(`Webhook delivery benchmark, ${new Date().toISOString()}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  const receiver = await Receiver.start();
  receiver.respond((request) =>
    request.path.includes("/hang")
      ? "hang"
      : { status: 200, body: "ok", delayMs: request.path.includes("/slow-drain") ? SLOW_REPLY_MS : undefined },
  );

  const raw = await rawRate(receiver);
  console.log(`1. raw signed POSTs from one process (64 at once, ${RAW_SECONDS} s): ${f0(raw)}/s`);

  let env: Env;
  let app: RunningApp;
  if (runs(2)) {
    env = await freshEnvironment("one");
    try {
      const one = await drainRate(receiver, env, 1);
      console.log(`2. one process drains ${BACKLOG} due deliveries over ${FAN_OUT} endpoints: ${f0(one.rate)}/s (${(one.rate / raw).toFixed(2)}× raw), duplicates ${one.duplicates}, ${cpuText(one)}`);
    } finally {
      await env.drop();
    }
  }

  if (runs(3)) {
    env = await freshEnvironment("fanout");
    app = await startApp({ DATABASE_URL: env.url });
    try {
      const post = client(app.baseUrl, env.seed.secret_token);
      await endpoints(post, env.seed.account_id, Array.from({ length: FAN_OUT }, (_, i) => `${receiver.url}/fan-${i}`));
      const startedAt = new Map<string, number>();
      const answeredAt = new Map<string, number>();
      const arrivals: number[] = [];
      const afterAnswer: number[] = [];
      const seen = new Map<string, number>();
      const fan = () => receiver.requests.filter((request) => request.path.startsWith("/webhooks/fan-"));
      const stopAt = performance.now() + BURST_SECONDS * 1000;
      let writes = 0;
      const writer = async (w: number) => {
        for (let i = 0; performance.now() < stopAt; i++) {
          const t0 = performance.now();
          const customer = await post("/customers", { email: `fan-${w}-${i}@example.com` });
          startedAt.set(String(customer.id), t0);
          answeredAt.set(String(customer.id), performance.now());
          writes++;
        }
      };
      const burstStart = performance.now();
      const wallOffset = Date.now() - performance.now();
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      const burstEnd = performance.now();
      await until(() => fan().length >= writes * FAN_OUT, 300_000);
      for (const request of fan()) {
        const id = (request.body as { data?: { object?: { id?: string } } })?.data?.object?.id ?? "";
        const t0 = startedAt.get(id);
        if (t0 !== undefined) arrivals.push(request.receivedAt - wallOffset - t0);
        const answered = answeredAt.get(id);
        if (answered !== undefined) afterAnswer.push(request.receivedAt - wallOffset - answered);
        seen.set(id, Math.max(seen.get(id) ?? 0, request.receivedAt - wallOffset));
      }
      const lastArrival = Math.max(...seen.values());
      console.log(
        `3. fan-out ${FAN_OUT}: ${writes} writes in ${BURST_SECONDS} s (${f0(writes / ((burstEnd - burstStart) / 1000))}/s) → ${writes * FAN_OUT} deliveries ` +
          `(${f0((writes * FAN_OUT) / ((lastArrival - burstStart) / 1000))}/s); event→receiver p50 ${f0(percentile(arrivals, 50))} ms, ` +
          `p99 ${f0(percentile(arrivals, 99))} ms (after the POST's answer: p50 ${f0(percentile(afterAnswer, 50))} ms, ` +
          `p99 ${f0(percentile(afterAnswer, 99))} ms); drained ${s1(Math.max(0, lastArrival - burstEnd))} after the writes stopped`,
      );
    } finally {
      await app.stop();
      await env.drop();
    }
  }

  if (runs(4)) {
    env = await freshEnvironment("isolation");
    app = await startApp({ DATABASE_URL: env.url });
    try {
      const a = client(app.baseUrl, env.seed.secret_token);
      const b = client(app.baseUrl, env.seed.sandbox_secret_token);
      const [slow] = await endpoints(a, env.seed.account_id, [`${receiver.url}/hang`]);
      await a("/customers", { email: "slow@example.com" });
      await insertBacklog(env, env.seed.account_id, [slow!], SLOW_BACKLOG);
      await endpoints(b, env.seed.sandbox_account_id, [`${receiver.url}/tenant-b`]);
      await sleep(2_000);
      const startedAt = new Map<string, number>();
      const wallOffset = Date.now() - performance.now();
      for (let i = 0; i < 300; i++) {
        const tick = performance.now();
        const t0 = performance.now();
        const customer = await b("/customers", { email: `b-${i}@example.com` });
        startedAt.set(String(customer.id), t0);
        await sleep(Math.max(0, 50 - (performance.now() - tick)));
      }
      const tenantB = () => receiver.requests.filter((request) => request.path === "/webhooks/tenant-b");
      await until(() => tenantB().length >= 300, 120_000);
      const latencies = tenantB().map((request) => {
        const id = (request.body as { data?: { object?: { id?: string } } })?.data?.object?.id ?? "";
        return request.receivedAt - wallOffset - startedAt.get(id)!;
      });
      const hanging = receiver.requests.filter((request) => request.path === "/webhooks/hang").length;
      console.log(
        `4. isolation: A hangs with ${SLOW_BACKLOG} due (${hanging} attempts open); B at 20 writes/s for 15 s: ` +
          `p50 ${f0(percentile(latencies, 50))} ms, p99 ${f0(percentile(latencies, 99))} ms, max ${f0(Math.max(...latencies))} ms`,
      );
    } finally {
      await app.stop();
      await env.drop();
    }
  }

  if (runs(5)) {
    env = await freshEnvironment("two");
    try {
      const two = await drainRate(receiver, env, 2);
      console.log(`5. two processes drain ${BACKLOG} due deliveries: ${f0(two.rate)}/s, duplicates ${two.duplicates}, ${cpuText(two)}`);
    } finally {
      await env.drop();
    }
  }

  if (runs(6)) {
    const rates: number[] = [];
    for (const apps of [1, 2]) {
      env = await freshEnvironment(`slow${apps}`);
      try {
        const figures = await drainRate(receiver, env, apps, SLOW_DRAIN);
        rates.push(figures.rate);
        console.log(
          `6. ${apps === 1 ? "one process drains" : "two processes drain"} ${SLOW_DRAIN.backlog} deliveries over ${SLOW_DRAIN.endpoints} endpoints ` +
            `answering after ${SLOW_REPLY_MS} ms: ${f0(figures.rate)}/s, duplicates ${figures.duplicates}, ${cpuText(figures)}`,
        );
      } finally {
        await env.drop();
      }
    }
    console.log(`6. two ÷ one with slow receivers: ${(rates[1]! / rates[0]!).toFixed(2)}`);
  }

  await receiver.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
