/**
 * Benchmark: where one write's time goes (issue #40), over HTTP against `next start` (run
 * `npm run build` first).
 *
 *   npm run bench:write-path -- [--seconds 10] [--connections 16]
 *
 * For `POST /api/customers` on an account with no webhook endpoint and on one with 3 (subscribed to
 * `customer.created`, delivered by the same instance to a loopback HTTPS receiver), and one-event
 * `POST /api/usage-events`, beside `GET /api/health` (the framework's floor) in the same run:
 * - throughput, p99 and the app's CPU per request at `--connections`;
 * - what the database saw per request, read off the wire by a proxy in front of PostgreSQL
 *   (tests/helpers/pg-wire.ts): round trips (each a wait on the database) and statements, background work of
 *   the same instance (deliveries, the request log's writer) included;
 * - the app's CPU per request by stage (routing, auth, rate limit, validation, idempotency, the
 *   driver, events, fan-out, request log, serialization, Next.js, GC), from a V8 CPU profile of
 *   the server read through the build's source maps (bench/cpu-stages.ts);
 * - the second floor: the statements of one such request, captured off the wire, replayed by a bare
 *   postgres.js script at the same concurrency (fresh ids each time): what the same write costs
 *   without the app around it.
 * Prints figures only; asserts nothing. A fresh database on the tests' PostgreSQL, dropped at the end.
 */
import "./limits";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { ADMIN_DATABASE_URL } from "@/tests/helpers/database";
import { Receiver } from "@/tests/helpers/receiver";
import { processCpuMs, startApp } from "@/tests/helpers/server";
import { CpuStages, type CpuProfile } from "./cpu-stages";
import { bestRatio, cpuPer, readCpu, type CpuReading } from "./machine-cpu";
import { benchAccounts, benchDatabase, benchEnvironment, load, log, option } from "./http";
import { PgWireCounter, type CapturedStatement } from "@/tests/helpers/pg-wire";

const SECONDS = Number(option("seconds", "10"));
const CONNECTIONS = Number(option("connections", "16"));
const MAIN = newId("account");
const QUIET = newId("account");

type Row = {
  name: string;
  rps: number;
  p99: number;
  cpuMs: number;
  roundTrips: number;
  statements: number;
  window: [fromUs: number, toUs: number];
  requests: number;
  replay?: { rate: number; cpuMs: number; statements: number } | string;
};

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_write_path");
  const profiles = mkdtempSync(path.join(tmpdir(), "write-path-prof-"));
  closeLater(async () => rmSync(profiles, { recursive: true, force: true }));
  try {
    const { token } = await benchAccounts(sql, MAIN, QUIET);
    const quietToken = (await issueToken(drizzle(sql), { accountId: QUIET, kind: "secret", name: "bench" })).token;
    const admin = new URL(ADMIN_DATABASE_URL);
    const wire = await PgWireCounter.start({ host: admin.hostname, port: Number(admin.port || 5432) });
    closeLater(() => wire.close());
    // The throughput pass: the app straight on PostgreSQL and not profiled, the figures the
    // targets are read against (the proxy and the profiler below cost CPU on the same 2 cores).
    const cleanApp = await startApp({ DATABASE_URL: url });
    closeLater(async () => cleanApp.stop().catch(() => undefined));
    const throughWire = new URL(url);
    throughWire.hostname = "127.0.0.1";
    throughWire.port = String(wire.port);
    process.env.APP_NODE_ARGS = `${process.env.APP_NODE_ARGS ?? ""} --cpu-prof --cpu-prof-dir=${profiles}`.trim();
    const app = await startApp({ DATABASE_URL: throughWire.toString() });
    let stopped = false;
    closeLater(async () => (stopped ? undefined : app.stop()));
    const receiver = await Receiver.start();
    closeLater(() => receiver.close());
    const base = app.baseUrl;
    const call = async (credential: string, method: string, route: string, body?: unknown) => {
      const response = await fetch(`${base}/api/${route}`, {
        method,
        headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    for (let index = 0; index < 3; index++) await call(token, "POST", `${MAIN}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
    await call(token, "POST", "meters", { event_name: "api_call", display_name: "API calls", aggregation: "sum" });
    const usageCustomer = await call(token, "POST", "customers", { email: "usage@example.com" });
    // What the writes refer to and the replay keeps: every id the run made before measuring.
    const existing = new Set(
      (await sql<{ id: string }[]>`select id from accounts union all select id from organizations union all select id from customers
        union all select id from meters union all select id from webhook_endpoints union all select id from api_tokens`).map((row) => row.id),
    );

    let serial = 0;
    const customerBody = () => JSON.stringify({ email: `c${++serial}@example.com`, name: `Customer ${serial}` });
    const usageBody = () => JSON.stringify({ event_name: "api_call", customer: usageCustomer.id, identifier: `use_${randomBytes(9).toString("base64url")}`, payload: { value: 1 } });
    const scenarios: { name: string; credential: string; route: string; method: string; body?: () => string }[] = [
      { name: "GET /api/health (the floor)", credential: token, route: "health", method: "GET" },
      { name: "POST /api/customers, no endpoint", credential: quietToken, route: "customers", method: "POST", body: customerBody },
      { name: "POST /api/customers, 3 endpoints", credential: token, route: "customers", method: "POST", body: customerBody },
      { name: "POST /api/usage-events, one event", credential: token, route: `${MAIN}/usage-events`, method: "POST", body: usageBody },
    ];
    // --only <text>: the floor and the scenarios whose name holds it (to iterate on one write).
    const only = option("only", "");
    if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((scenario, index) => index === 0 || scenario.name.includes(only)));
    // --clean-only: the throughput pass alone, without the breakdown through the proxy and profiler.
    const cleanOnly = process.argv.includes("--clean-only");
    console.log(`Write-path benchmark, ${new Date().toISOString()}: ${CONNECTIONS} connections, ${SECONDS} s a row; load average ${loadavg().map((value) => value.toFixed(2)).join(", ")}.`);

    // Until the webhook deliveries due so far are made: a write's background work is part of its cost.
    const deliveriesDone = () => waitForDeliveries(sql);
    const clean: { name: string; rps: number; p99: number; cpuMs: number; machine: ReturnType<typeof cpuPer> }[] = [];
    for (const scenario of scenarios) {
      const { result, requests, cpuMs, machine } = await measure(cleanApp, scenario, undefined, deliveriesDone);
      clean.push({ name: scenario.name, rps: result.rps, p99: result.p99, cpuMs: cpuMs / requests, machine });
      log(`clean: ${scenario.name.padEnd(36)} ${result.rps.toFixed(0).padStart(6)} req/s  p99 ${result.p99} ms  ${clean.at(-1)!.cpuMs.toFixed(2)} ms CPU  machine ${machine.machineMs.toFixed(2)} ms${result.errors ? `  (${result.errors} errors)` : ""}`);
    }
    await cleanApp.stop();
    console.log(`\nThroughput pass (the app straight on PostgreSQL, not profiled):\n`);
    console.log(
      `| write | req/s (× floor) | p99 ms (× floor's p99) | app CPU ms/request | machine CPU ms/request, to its deliveries' end: app / PostgreSQL / load generator and receiver / other | the best ratio ${availableParallelism()} cores allow (floor's machine CPU ÷ this) |`,
    );
    console.log("|---|---|---|---|---|---|");
    for (const row of clean) {
      const { machine } = row;
      console.log(
        `| ${row.name} | ${row.rps.toFixed(0)} (${(row.rps / clean[0]!.rps).toFixed(2)}×) | ${row.p99} (${(row.p99 / Math.max(1, clean[0]!.p99)).toFixed(1)}×) | ${row.cpuMs.toFixed(2)} | ${machine.machineMs.toFixed(2)}: ${[machine.appMs, machine.postgresMs, machine.selfMs, machine.otherMs].map((ms) => ms.toFixed(2)).join(" / ")} | ${bestRatio(clean[0]!.machine, machine).toFixed(2)}× |`,
      );
    }
    if (cleanOnly) return;
    console.log(`\nBreakdown pass (through the wire proxy, profiled):`);

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const { result, requests, cpuMs, from, to } = await measure(app, scenario, () => wire.take());
      const seen = wire.take();
      const row: Row = {
        name: scenario.name,
        rps: result.rps,
        p99: result.p99,
        cpuMs: cpuMs / requests,
        roundTrips: seen.roundTrips / requests,
        statements: seen.statements / requests,
        window: [from, to],
        requests,
      };
      if (scenario.body) row.replay = await replayFloor(url, await captureOne(wire, base, scenario, existing), existing, CONNECTIONS, SECONDS);
      rows.push(row);
      log(`${scenario.name.padEnd(36)} ${result.rps.toFixed(0).padStart(6)} req/s  p99 ${result.p99} ms  ${row.cpuMs.toFixed(2)} ms CPU  ${row.roundTrips.toFixed(1)} round trips  ${row.statements.toFixed(1)} statements${result.errors ? `  (${result.errors} errors)` : ""}`);
    }
    const floor = rows[0]!;

    await app.stop();
    stopped = true;
    const profileFile = readdirSync(profiles).find((file) => file.includes(`.${app.pid}.`) && file.endsWith(".cpuprofile"));
    const profile = profileFile ? (JSON.parse(readFileSync(path.join(profiles, profileFile), "utf8")) as CpuProfile) : null;

    console.log(`\n| write | req/s (× floor) | p99 ms (× floor) | app CPU ms/request | round trips / statements per request | bare postgres.js replay of its statements |`);
    console.log("|---|---|---|---|---|---|");
    for (const row of rows) {
      const replay = row.replay === undefined ? "—" : typeof row.replay === "string" ? row.replay : `${row.replay.rate.toFixed(0)} writes/s, ${row.replay.cpuMs.toFixed(2)} ms client CPU a write (${row.replay.statements} statements)`;
      console.log(
        `| ${row.name} | ${row.rps.toFixed(0)} (${(row.rps / floor.rps).toFixed(2)}×) | ${row.p99} (${(row.p99 / Math.max(1, floor.p99)).toFixed(1)}×) | ${row.cpuMs.toFixed(2)} | ${row.roundTrips.toFixed(1)} / ${row.statements.toFixed(1)} | ${replay} |`,
      );
    }
    if (!profile) {
      console.log("\n(no CPU profile was written: the stage table is missing)");
      return;
    }
    // A profile samples the thread's wall clock: on a loaded machine a sample also stands for time
    // the thread waited for a core. Each row's shares are therefore scaled to its measured CPU.
    const stages = new CpuStages();
    const table = (title: string, perRow: Map<string, number>[], limit: number) => {
      const scaled = perRow.map((totals, index) => {
        const sampled = [...totals.values()].reduce((sum, value) => sum + value, 0);
        const scale = sampled > 0 ? rows[index]!.cpuMs / (sampled / rows[index]!.requests) : 0;
        return new Map([...totals].map(([name, ms]) => [name, (ms / rows[index]!.requests) * scale]));
      });
      const names = [...new Set(scaled.flatMap((totals) => [...totals.keys()]))]
        .sort((a, b) => Math.max(...scaled.map((totals) => totals.get(b) ?? 0)) - Math.max(...scaled.map((totals) => totals.get(a) ?? 0)))
        .slice(0, limit);
      console.log(`\n${title}\n`);
      console.log(`| | ${rows.map((row) => row.name).join(" | ")} |`);
      console.log(`|---|${rows.map(() => "---:").join("|")}|`);
      for (const name of names) console.log(`| ${name} | ${scaled.map((totals) => (totals.get(name) ?? 0).toFixed(3)).join(" | ")} |`);
    };
    table("App CPU per request by stage, ms (V8 CPU profile of the server, idle excluded, scaled to the measured CPU):", rows.map((row) => stages.attribute(profile, row.window[0], row.window[1])), 100);
    table("The same by source file, the 25 largest:", rows.map((row) => stages.files(profile, row.window[0], row.window[1])), 25);
    console.log(`\nload average (1, 5, 15 min) at the end: ${loadavg().map((value) => value.toFixed(2)).join(", ")}`);
  } finally {
    await cleanUp();
  }
}

type Scenario = { credential: string; route: string; method: string; body?: () => string };

/**
 * One scenario on `app`: warmed for 2 s, then loaded for SECONDS at CONNECTIONS; `afterWarmUp`
 * runs between the two (to reset counters). Answers the load's result, how many requests it made,
 * the app's CPU over it (ms) and its window (µs, for the profile). With `backgroundDone` (a wait
 * for the work the writes leave behind, such as their webhook deliveries), also the machine's CPU
 * per request by part, from the window's start (the warm-up's work done first) to that work's end.
 */
async function measure(app: { baseUrl: string; pid: number }, scenario: Scenario, afterWarmUp?: () => void, backgroundDone?: () => Promise<void>) {
  const options = { connections: CONNECTIONS, method: scenario.method, ...(scenario.body ? { body: scenario.body } : {}) };
  const next = () => `/api/${scenario.route}`;
  await load(app.baseUrl, scenario.credential, next, { ...options, duration: 2 });
  await backgroundDone?.();
  afterWarmUp?.();
  const machineBefore: CpuReading = readCpu(app.pid);
  const cpuBefore = processCpuMs(app.pid);
  const from = nowUs();
  const result = await load(app.baseUrl, scenario.credential, next, { ...options, duration: SECONDS });
  const to = nowUs();
  const cpuMs = processCpuMs(app.pid) - cpuBefore;
  const requests = Math.max(1, Math.round(result.rps * SECONDS));
  await backgroundDone?.();
  return { result, requests, cpuMs, from, to, machine: cpuPer(machineBefore, readCpu(app.pid), requests) };
}

/** Until no webhook delivery is due and unmade (pending or being made); at most 5 minutes. */
async function waitForDeliveries(sql: postgres.Sql): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const [row] = await sql<{ due: number }[]>`select count(*)::int as due from event_deliveries where status = 'delivering' or (status = 'pending' and (due_at is null or due_at <= now()))`;
    if (row!.due === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.due} webhook deliveries still due after 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The statements of one such request alone, read off the wire (the app otherwise idle but for its background timers). */
async function captureOne(
  wire: PgWireCounter,
  base: string,
  scenario: Scenario,
  existing: Set<string>,
): Promise<CapturedStatement[]> {
  const body = scenario.body?.();
  // What only this request carries: its unique values (an email, an identifier) and the id it made.
  const marks = Object.values(JSON.parse(body ?? "{}") as Record<string, unknown>).filter(
    (value): value is string => typeof value === "string" && /\d/.test(value) && !existing.has(value),
  );
  const captured = await wire.capture(async () => {
    const response = await fetch(`${base}/api/${scenario.route}`, {
      method: scenario.method,
      headers: { authorization: `Bearer ${scenario.credential}`, "content-type": "application/json" },
      body,
    });
    marks.push(((await response.json()) as { id: string }).id);
  });
  // The request's own statements: on each connection, the transaction (begin … commit) or the lone
  // statement that carries one of its marks. Those of requests still draining from the load before,
  // of the delivery driver and of the request log's writer are left out.
  const mine = (statement: CapturedStatement) => statement.params.some((param) => param !== null && marks.some((mark) => param.includes(mark)));
  const statements: CapturedStatement[] = [];
  const byConnection = new Map<number, CapturedStatement[]>();
  for (const statement of captured) byConnection.set(statement.connection, [...(byConnection.get(statement.connection) ?? []), statement]);
  for (const sequence of byConnection.values()) {
    let transaction: CapturedStatement[] | null = null;
    for (const statement of sequence) {
      const text = statement.text.trim().toLowerCase();
      if (text.startsWith("begin")) transaction = [statement];
      else if (transaction && (text === "commit" || text === "rollback")) {
        transaction.push(statement);
        if (transaction.some(mine)) statements.push(...transaction);
        transaction = null;
      } else if (transaction) transaction.push(statement);
      else if (mine(statement)) statements.push(statement);
    }
  }
  for (const statement of statements) log(`    ${statement.text.replace(/\s+/g, " ").slice(0, 140)}`);
  return statements;
}

const ID = /\b[a-z]{2,12}_[0-9A-Za-z_-]{8,}\b/g;

/**
 * The captured statements replayed by postgres.js on reserved connections, `connections` at once,
 * for `seconds`: the ids the write made (those first seen in an INSERT's parameters) are fresh on
 * every replay, so each replay is a new write like the request's. Answers writes/s and the replaying
 * process's CPU per write, or why it could not replay.
 */
async function replayFloor(url: string, captured: CapturedStatement[], existing: Set<string>, connections: number, seconds: number): Promise<{ rate: number; cpuMs: number; statements: number } | string> {
  const made = new Set<string>();
  const seen = new Set<string>();
  for (const statement of captured) {
    const ids = statement.params.flatMap((param) => param?.match(ID) ?? []);
    const inserts = /^\s*(with\b[\s\S]*\binsert\b|insert\b)/i.test(statement.text);
    for (const id of ids) {
      if (!seen.has(id) && inserts && !existing.has(id)) made.add(id);
      seen.add(id);
    }
  }
  const fresh = () => {
    const mapping = new Map([...made].map((id) => [id, `${id.slice(0, id.indexOf("_") + 1)}${randomBytes(24).toString("base64url").replace(/[-_]/g, "x").slice(0, id.length - id.indexOf("_") - 1)}`]));
    return captured.map((statement) => ({
      text: statement.text,
      params: statement.params.map((param) => (param === null ? null : asValue(param.replace(ID, (id) => mapping.get(id) ?? id)))),
    }));
  };
  const sql = postgres(url, { max: connections, onnotice: () => {} });
  const cpuBefore = process.cpuUsage();
  const deadline = Date.now() + seconds * 1000;
  let writes = 0;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        const connection = await sql.reserve();
        try {
          while (Date.now() < deadline) {
            for (const statement of fresh()) await connection.unsafe(statement.text, statement.params as postgres.ParameterOrJSON<never>[], { prepare: true });
            writes++;
          }
        } finally {
          connection.release();
        }
      }),
    );
  } catch (error) {
    return `replay failed: ${(error as Error).message.slice(0, 120)}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: writes / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, writes), statements: captured.length };
}

/**
 * A parameter as postgres.js should be given it: it serializes json and jsonb parameters itself
 * (JSON.stringify), so a JSON document captured as text goes back as the value it encodes.
 */
function asValue(param: string): unknown {
  if (!/^[[{]/.test(param)) return param;
  try {
    return JSON.parse(param) as unknown;
  } catch {
    return param;
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
