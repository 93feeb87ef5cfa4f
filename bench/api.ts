/**
 * Benchmark: the API at scale, over HTTP against `next start` (run `npx next build` first).
 *
 *   npm run bench:api -- [--events 1000000,10000000] [--requests 400] [--seconds 10] [--skip-throughput] [--hot-only] [--without-list-counters]
 *
 * For each size (ascending; the data grows in place), with 10 % as many events on a second
 * account as noise: p50/p99 of every filter of GET /api/{account}/events and of every kind of deep
 * page, and of the dashboard's timeline page (its whole HTML, the first rows rendered on the
 * server, with a signed-in session), at 2 connections; at the largest size the throughput at 16 connections of /api/health (the
 * floor) and of the hot paths, with their ratios to the floor; then how each p99 grew from the
 * smallest size to the largest. Also the write-path cost of the event counters. `--hot-only`
 * loads the data and measures only the throughput rows (for profiling: APP_NODE_ARGS; for a
 * baseline build: APP_ROOT, see tests/helpers/server.ts). `--without-list-counters` disables the
 * list-count triggers of the tables POST /api/customers writes, to measure what they cost.
 *
 * POST /api/customers is measured twice: against the instance that also delivers its webhooks (the
 * default: every instance runs the delivery driver), and against an instance started with
 * BACKGROUND_WORK=off while the first one delivers (API and worker instances apart). Prints figures
 * only; asserts nothing. Uses a fresh database (dropped at the end) on the tests' PostgreSQL
 * (TEST_ADMIN_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import "./limits";
import { benchAccounts, benchEnvironment, elapsed, load, log, option, seeded, type Latency } from "./http";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { loadSyntheticEvents, withEventIndexesRebuilt } from "@/db/synthetic-events";
import { hashPassword } from "@/lib/auth/passwords";
import { EVENT_TYPES, aggregateTypeOf } from "@/lib/events/catalogue";
import { newId } from "@/lib/ids";
import { createFreshDatabase } from "@/tests/helpers/database";
import { signInWithPassword } from "@/tests/helpers/sign-in";
import { Receiver } from "@/tests/helpers/receiver";
import { processCpuMs, startApp } from "@/tests/helpers/server";

const SIZES = option("events", "1000000,10000000")
  .split(",")
  .map((value) => Number(value.replaceAll("_", "")))
  .sort((a, b) => a - b);
const REQUESTS = Number(option("requests", "400"));
const SECONDS = Number(option("seconds", "10"));
const THROUGHPUT = !process.argv.includes("--skip-throughput");
const HOT_ONLY = process.argv.includes("--hot-only");
const WITHOUT_LIST_COUNTERS = process.argv.includes("--without-list-counters");
const MAIN = newId("account");
const NOISE = newId("account");

const { pick } = seeded(7);

async function main(): Promise<void> {
  benchEnvironment();
  const database = await createFreshDatabase("bench_issue10");
  const sql = postgres(database.url, { max: 4, onnotice: () => {} });
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  let apiOnly: Awaited<ReturnType<typeof startApp>> | undefined;
  let receiver: Receiver | undefined;
  const cleanUp = async () => {
    await app?.stop();
    await apiOnly?.stop();
    await receiver?.close();
    await sql.end({ timeout: 5 });
    await database.drop();
  };
  process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));
  try {
    await migratePostgres(database.url);
    const { organization, token } = await benchAccounts(sql, MAIN, NOISE);
    const password = "correct horse battery staple";
    await sql`insert into users (id, organization_id, email, name, password_hash)
      values (${newId("user")}, ${organization}, 'bench@example.com', 'Bench', ${await hashPassword(password)})`;
    // The write-path cost of the list counters: the same run with their triggers off on the tables
    // POST /api/customers writes (totals then go stale: for measuring only).
    if (WITHOUT_LIST_COUNTERS) for (const table of ["customers", "event_deliveries"]) await sql.unsafe(`alter table ${table} disable trigger user`);
    app = await startApp({ DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    const base = app.baseUrl;
    const session = { cookie: await signInWithPassword(base, "bench@example.com", password) };
    console.log(`API benchmark, ${new Date().toISOString()}: sizes ${SIZES.join(", ")}; ${REQUESTS} requests per row at 2 connections.`);

    const perSize = new Map<number, Map<string, Latency>>();
    let loaded = 0;
    for (const size of SIZES) {
      const phase = performance.now();
      const to = new Date(Date.now() - 86_400_000);
      // The secondary indexes built once after the bulk load, from their own definitions.
      await withEventIndexesRebuilt(sql, async () => {
        await loadSyntheticEvents(sql, { accountId: MAIN, events: size - loaded, connections: 2, to, from: new Date(to.getTime() - 365 * 86_400_000) });
        await loadSyntheticEvents(sql, { accountId: NOISE, events: (size - loaded) / 10, connections: 2, to, from: new Date(to.getTime() - 365 * 86_400_000) });
      });
      loaded = size;
      await sql`vacuum (analyze) events`;
      await sql`vacuum (analyze) event_counts`;
      log(`${size.toLocaleString("en")} events loaded (+10 % noise) and vacuumed in ${elapsed(phase)}`);
      if (HOT_ONLY) continue;

      const events = await sql<{ id: string; aggregate_id: string; type: string; created: Date }[]>`
        select id, aggregate_id, type, created from events tablesample system (${Math.min(100, 2_000_000 / size)}) where account_id = ${MAIN} limit 2000`;
      const day = (offsetDays: number) => new Date(Date.now() - offsetDays * 86_400_000 - 37 * 60_000).toISOString();
      const ev = `/api/${MAIN}/events`;
      const scenarios: [string, () => string][] = [
        ["floor: GET /api/health", () => "/api/health"],
        ["no filter", () => `${ev}`],
        ["event_id", () => `${ev}?event_id=${pick(events).id}`],
        ["aggregate_id", () => `${ev}?aggregate_id=${pick(events).aggregate_id}`],
        ["aggregate_type", () => `${ev}?aggregate_type=${aggregateTypeOf(pick(EVENT_TYPES))}`],
        ["event_type", () => `${ev}?event_type=${pick(EVENT_TYPES)}`],
        ["aggregate_type + event_type", () => { const type = pick(EVENT_TYPES); return `${ev}?aggregate_type=${aggregateTypeOf(type)}&event_type=${type}`; }],
        ["aggregate_id + event_type", () => { const e = pick(events); return `${ev}?aggregate_id=${e.aggregate_id}&event_type=${e.type}`; }],
        ["created range (90 days, cut days)", () => `${ev}?created[gte]=${day(200)}&created[lt]=${day(110)}`],
        ["created range + event_type", () => `${ev}?event_type=${pick(EVENT_TYPES)}&created[gte]=${day(300)}&created[lt]=${day(20)}`],
        ["deep: offset=10000", () => `${ev}?offset=10000`],
        ["deep: offset=10000 + aggregate_type", () => `${ev}?offset=10000&aggregate_type=${pick(["invoice", "payment", "customer"])}`],
        ["deep: starting_after (anywhere)", () => `${ev}?starting_after=${pick(events).id}`],
        ["deep: ending_before (anywhere)", () => `${ev}?ending_before=${pick(events).id}`],
        ["deep: starting_after + event_type", () => { const e = pick(events); return `${ev}?event_type=${e.type}&starting_after=${e.id}`; }],
      ];
      // The dashboard's timeline: the whole HTML of the page, its first rows rendered on the server.
      const page = `/accounts/${MAIN}/events`;
      const dashboard: [string, () => string][] = [
        ["dashboard timeline (page HTML)", () => page],
        ["dashboard timeline + event_type", () => `${page}?event_type=${pick(EVENT_TYPES)}`],
        ["dashboard timeline + aggregate_id", () => `${page}?aggregate_id=${pick(events).aggregate_id}`],
      ];
      const results = new Map<string, Latency>();
      for (const [name, path] of [...scenarios, ...dashboard]) {
        const as = path().startsWith("/accounts/") ? session : token;
        const check = await fetch(`${base}${path()}`, { headers: typeof as === "string" ? { authorization: `Bearer ${as}` } : { cookie: as.cookie } });
        if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`);
        if (as !== token && !(await check.text()).includes(`/accounts/${MAIN}/events/evt_`)) throw new Error(`${name}: no event rows in the page's HTML`);
        await load(base, as, path, { connections: 2, amount: 40 });
        const result = await load(base, as, path, { connections: 2, amount: REQUESTS });
        results.set(name, result);
        log(`${name.padEnd(38)} p50 ${String(result.p50).padStart(4)} ms  p99 ${String(result.p99).padStart(4)} ms${result.errors ? `  (${result.errors} errors)` : ""}`);
      }
      perSize.set(size, results);
    }

    if (SIZES.length > 1 && !HOT_ONLY) {
      const [small, large] = [SIZES[0]!, SIZES.at(-1)!];
      console.log(`\nGrowth of p99 from ${small.toLocaleString("en")} to ${large.toLocaleString("en")} events (1.0 = flat):`);
      for (const [name, result] of perSize.get(large)!) {
        const before = perSize.get(small)!.get(name)!;
        log(`${name.padEnd(38)} ${before.p99} → ${result.p99} ms  ×${(result.p99 / Math.max(1, before.p99)).toFixed(2)}`);
      }
    }

    if (THROUGHPUT) {
      receiver = await Receiver.start();
      for (let i = 0; i < 3; i++) {
        const created = await fetch(`${base}/api/${MAIN}/webhook-endpoints`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ url: receiver.url, events: ["customer.created"] }),
        });
        if (created.status !== 201) throw new Error(`endpoint: ${await created.text()}`);
      }
      const customer = await (await fetch(`${base}/api/customers`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ email: "bench@example.com" }),
      })).json() as { id: string };
      const [anAggregate] = await sql<{ aggregate_id: string }[]>`select aggregate_id from events where account_id = ${MAIN} limit 1`;
      let n = 0;
      const post = { connections: 16, duration: SECONDS, method: "POST", body: () => JSON.stringify({ email: `c${++n}@example.com` }) };
      const hot: [string, Parameters<typeof load>[3], () => string][] = [
        ["GET /api/health (floor)", { connections: 16, duration: SECONDS }, () => "/api/health"],
        ["GET /api/customers/{id}", { connections: 16, duration: SECONDS }, () => `/api/customers/${customer.id}`],
        ["GET /api/{acc}/events?aggregate_id=…", { connections: 16, duration: SECONDS }, () => `/api/${MAIN}/events?aggregate_id=${anAggregate!.aggregate_id}`],
        ["POST /api/customers (3 endpoints)", post, () => "/api/customers"],
        ["GET /api/health (floor, again)", { connections: 16, duration: SECONDS }, () => "/api/health"],
      ];
      /** Runs the rows against `target`, printing req/s, the ratio to its floor and CPU per request of `target` (and of `other`, if any). */
      const measure = async (target: NonNullable<typeof app>, rows: typeof hot, other?: NonNullable<typeof app>) => {
        let floor = 0;
        for (const [name, options, path] of rows) {
          await load(target.baseUrl, token, path, { ...options, duration: 2 });
          const cpuBefore = processCpuMs(target.pid);
          const otherBefore = other ? processCpuMs(other.pid) : 0;
          const result = await load(target.baseUrl, token, path, options);
          const requests = result.rps * (options.duration ?? SECONDS);
          // App CPU per request (deliveries sent meanwhile included): comparable across loaded runs.
          const cpuPerRequest = (processCpuMs(target.pid) - cpuBefore) / requests;
          const otherCpu = other ? `  + worker ${((processCpuMs(other.pid) - otherBefore) / requests).toFixed(2)} ms CPU/request` : "";
          if (name.startsWith("GET /api/health (floor)")) floor = result.rps;
          log(`${name.padEnd(38)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  ×${(result.rps / floor).toFixed(2)} of the floor  ${cpuPerRequest.toFixed(2)} ms app CPU/request${otherCpu}${result.errors ? `  (${result.errors} errors)` : ""}`);
        }
      };
      console.log(`\nThroughput at 16 connections, ${SECONDS} s each, one instance that also delivers the webhooks (to a loopback HTTPS receiver) meanwhile:`);
      await measure(app, hot);

      // The same POST against an API-only instance (BACKGROUND_WORK=off); the first instance,
      // idle otherwise, delivers its webhooks as a worker. Its floor is measured the same way.
      apiOnly = await startApp({ DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", BACKGROUND_WORK: "off" });
      console.log(`\nThe same on an API-only instance (BACKGROUND_WORK=off) while the first instance delivers as a worker:`);
      await measure(apiOnly, [hot[0]!, hot[3]!, hot[4]!], app);
    }

    if (HOT_ONLY) return;
    // The counters' cost on the write path, isolated: the event insert of emitEvent alone, and
    // with its counter upsert, in one transaction each, 16 at a time for SECONDS each.
    console.log(`\nWrite path: transactions/s at 16 connections inserting one event, without and with its counter upsert:`);
    const writer = postgres(database.url, { max: 16, onnotice: () => {} });
    for (const withCounts of [false, true, false, true]) {
      let done = 0;
      const until = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (performance.now() < until) {
            await writer.begin(async (tx) => {
              const id = `evt_prod_w${randomBytes(12).toString("hex")}`;
              await tx`insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence, created)
                values (${id}, ${MAIN}, 'customer.created', 'customer', ${id}, '{}', '{}', 1, 1, now())`;
              if (withCounts) {
                const shard = Math.floor(Math.random() * 8);
                await tx`insert into event_counts (account_id, dimension, value, day, shard, count) values
                  (${MAIN}, 'all', '', current_date, ${shard}, 1), (${MAIN}, 'aggregate_type', 'customer', current_date, ${shard}, 1),
                  (${MAIN}, 'type', 'customer.created', current_date, ${shard}, 1)
                  on conflict (account_id, dimension, value, day, shard) do update set count = event_counts.count + excluded.count`;
              }
            });
            done++;
          }
        }),
      );
      log(`${withCounts ? "with counters   " : "without counters"} ${(done / SECONDS).toFixed(0)} tx/s`);
    }
    await writer.end({ timeout: 5 });
  } finally {
    await cleanUp();
  }
}

await main();
