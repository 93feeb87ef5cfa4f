/**
 * Benchmark: the events list (GET /api/{account}/events) on a large account.
 *
 * Creates a fresh PostgreSQL database, bulk-inserts N events for one account (plus 10 % as many for
 * a second account, as noise), then times the two queries that lib/events-api/service.ts runs for
 * every filter of the list: the page (`… order by created desc, id desc limit 50 offset 0`) and the
 * `count(*)` with the same `where`, each many times with random filter values. Prints p50/p95/p99
 * per query, the top nodes of each plan (index use), a deep page (offset 10 000), and drops the
 * database at the end. Prints figures only; it asserts nothing.
 *
 *   npx tsx bench/events-list.ts [--events 1000000] [--runs 200]      (npm run bench:events -- …)
 *
 * Needs the PostgreSQL server of the tests (TEST_ADMIN_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). Run it from the project root.
 */
import { performance } from "node:perf_hooks";
import { count, desc } from "drizzle-orm";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { eventFilterConditions } from "@/lib/events-api/service";
import { events } from "@/db/schema";
import { AGGREGATE_TYPES, EVENT_TYPES, aggregateTypeOf, type AggregateType, type EventType } from "@/lib/events/catalogue";
import type { EventFilters } from "@/lib/events-api/schema";
import { createFreshDatabase } from "@/tests/helpers/database";
import { AGGREGATE_PREFIX, AGGREGATE_WEIGHT } from "@/db/synthetic-events";

// ---------------------------------------------------------------- options

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number((process.argv[index + 1] ?? "").replaceAll("_", ""));
  if (!Number.isInteger(value) || value <= 0) {
    console.error(`--${name} needs a positive integer.`);
    process.exit(1);
  }
  return value;
}

const EVENTS = option("events", 1_000_000);
const NOISE_EVENTS = Math.ceil(EVENTS / 10);
const RUNS = option("runs", 200);
const DEEP_RUNS = Math.max(20, Math.floor(RUNS / 4));
const DEEP_OFFSET = 10_000;
const PAGE_SIZE = 50;
const WARMUP = 10;
const BATCH = 100_000;

const MAIN_ACCOUNT = "acc_prod_benchmain";
const NOISE_ACCOUNT = "acc_prod_benchnoise";

// ---------------------------------------------------------------- the data's shape

function verbWeight(type: EventType): number {
  const verb = type.slice(type.lastIndexOf(".") + 1);
  if (["created", "succeeded", "paid", "payment_succeeded", "finalized"].includes(verb)) return 3;
  if (["updated", "processing", "completed", "upcoming"].includes(verb)) return 2;
  if (["deleted", "voided", "expired", "marked_uncollectible", "partially_funded", "paused", "resumed"].includes(verb)) return 0.3;
  return 1;
}

const TYPE_WEIGHTS = EVENT_TYPES.map((type) => AGGREGATE_WEIGHT[aggregateTypeOf(type)] * verbWeight(type));
const TOTAL_WEIGHT = TYPE_WEIGHTS.reduce((sum, weight) => sum + weight, 0);
const TYPE_SHARES = TYPE_WEIGHTS.map((weight) => weight / TOTAL_WEIGHT);
/** Upper bounds for width_bucket(random(), …): bucket i (0-based) is EVENT_TYPES[i]. */
const CUMULATIVE = TYPE_SHARES.slice(0, -1).map((_, i) => TYPE_SHARES.slice(0, i + 1).reduce((sum, share) => sum + share, 0));

/** Distinct aggregates per entity type: about 10 events per aggregate (N/10 aggregates in all). */
function aggregatePools(eventCount: number): number[] {
  const shareOf = new Map<AggregateType, number>();
  EVENT_TYPES.forEach((type, i) => {
    const aggregate = aggregateTypeOf(type);
    shareOf.set(aggregate, (shareOf.get(aggregate) ?? 0) + TYPE_SHARES[i]!);
  });
  return EVENT_TYPES.map((type) => Math.max(1, Math.round(((shareOf.get(aggregateTypeOf(type)) ?? 0) * eventCount) / 10)));
}

// ---------------------------------------------------------------- helpers

/** A small seeded PRNG (mulberry32), so that runs pick the same filter values. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(42);
function pick<T>(values: readonly T[]): T {
  if (values.length === 0) throw new Error("pick from an empty list");
  return values[Math.floor(random() * values.length)]!;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

type Stats = { p50: number; p95: number; p99: number; mean: number };
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), mean };
}

const ms = (value: number) => (Number.isNaN(value) ? "-" : value < 10 ? value.toFixed(2) : value.toFixed(1));
const int = (value: number) => Math.round(value).toLocaleString("en-US");
const pad = (text: string, width: number) => text.padEnd(width);
const padLeft = (text: string, width: number) => text.padStart(width);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const log = (message: string) => console.log(`  ${message}`);

/** The node chain at the top of a plan, e.g. `Limit → Index Scan Backward using events_account_type_idx`. */
function planSummary(lines: string[], depth = 4): string {
  return lines
    .filter((line, i) => i === 0 || line.includes("->"))
    .slice(0, depth)
    .map((line) => line.replace(/^\s*->\s*/, "").replace(/\s+\(cost=.*$/, "").replace(/ on events$/, "").trim())
    .join(" → ");
}

// ---------------------------------------------------------------- the service's queries

type Db = PostgresJsDatabase;

function listQueries(db: Db, filters: EventFilters, offset: number) {
  const where = eventFilterConditions(MAIN_ACCOUNT, filters);
  return {
    page: db
      .select()
      .from(events)
      .where(where)
      .orderBy(desc(events.created), desc(events.id))
      .limit(PAGE_SIZE)
      .offset(offset),
    count: db.select({ total: count() }).from(events).where(where),
  };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    `Events list benchmark: ${int(EVENTS)} events on one account (+ ${int(NOISE_EVENTS)} on another), ` +
      `${RUNS} runs per filter, page size ${PAGE_SIZE}.`,
  );

  const database = await createFreshDatabase("bench_events");
  let client: postgres.Sql | undefined;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await client?.end({ timeout: 5 }).catch(() => {});
    await database.drop();
  };
  const interrupt = () => {
    console.error("\nInterrupted: dropping the benchmark database.");
    void drop().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  try {
    await migratePostgres(database.url);
    // One connection: every timed query runs alone, as one request's query would on an idle server.
    client = postgres(database.url, { max: 1, onnotice: () => {} });
    const sql = client;
    const db = drizzle(client);

    // ---- data
    let phase = performance.now();
    await sql`insert into organizations (id, name) values ('org_prod_bench', 'Benchmark')`;
    await sql`insert into accounts (id, organization_id, name, livemode) values
      (${MAIN_ACCOUNT}, 'org_prod_bench', 'Benchmark (measured)', true),
      (${NOISE_ACCOUNT}, 'org_prod_bench', 'Benchmark (noise)', true)`;

    // Secondary indexes and the foreign key are dropped for the bulk load and re-created from their
    // own definitions afterwards (much faster than maintaining them row by row; same indexes).
    const indexes = await sql<{ indexname: string; indexdef: string }[]>`
      select indexname, indexdef from pg_indexes where tablename = 'events' and indexname <> 'events_pkey'`;
    const foreignKeys = await sql<{ conname: string; def: string }[]>`
      select conname, pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = 'events'::regclass and contype = 'f'`;
    for (const fk of foreignKeys) await sql.unsafe(`alter table events drop constraint "${fk.conname}"`);
    for (const index of indexes) await sql.unsafe(`drop index "${index.indexname}"`);

    await sql`select setseed(0.42)`;
    await sql`set work_mem = '64MB'`;
    const total = EVENTS + NOISE_EVENTS;
    const yearMs = 365 * 24 * 3600 * 1000;
    const startMs = Date.now() - yearMs;
    const prefixes = EVENT_TYPES.map((type) => AGGREGATE_PREFIX[aggregateTypeOf(type)]);
    const aggregateTypes = EVENT_TYPES.map((type) => aggregateTypeOf(type));
    const mainPools = aggregatePools(EVENTS);
    const noisePools = aggregatePools(NOISE_EVENTS);
    for (let low = 1; low <= total; low += BATCH) {
      const high = Math.min(total, low + BATCH - 1);
      // Row g of 1..total: the noise rows are spread evenly among the measured ones (exactly
      // NOISE_EVENTS of them), `created` grows with g over one year (with jitter), so the table is in
      // insertion order as in production, and the id is time-ordered and unique (`evt_prod_` + 29).
      await sql`
        insert into events (id, account_id, type, aggregate_type, aggregate_id, data, previous_data,
                            metadata, correlation_id, version, sequence, created, actor_type, actor_id)
        select
          'evt_prod_' || lpad(to_hex(s.ms), 12, '0') || lpad(to_hex(s.g), 17, '0'),
          case when s.noise then ${NOISE_ACCOUNT} else ${MAIN_ACCOUNT} end,
          t.type, t.aggregate_type, t.aggregate_id,
          jsonb_build_object(
            'id', t.aggregate_id, 'object', t.aggregate_type, 'livemode', true,
            'created', s.ms / 1000, 'status', 'active', 'amount', (s.r * 100000)::int, 'currency', 'usd',
            'description', 'Benchmark ' || t.aggregate_type || ' ' || s.g, 'metadata', '{}'::jsonb),
          case when t.type like '%.created' then null else jsonb_build_object(
            'id', t.aggregate_id, 'object', t.aggregate_type, 'livemode', true,
            'created', s.ms / 1000, 'status', 'draft', 'amount', (s.r * 100000)::int, 'currency', 'usd',
            'description', 'Benchmark ' || t.aggregate_type || ' ' || s.g, 'metadata', '{}'::jsonb) end,
          '{}'::jsonb,
          'req_prod_' || md5(s.g::text),
          1,
          s.g, -- unique per aggregate (not 1, 2, 3…: the list bench does not read it)
          to_timestamp(s.ms / 1000.0),
          'api_key',
          'key_prod_bench'
        from (
          select g,
                 floor(g::numeric * ${NOISE_EVENTS} / ${total}) > floor((g - 1)::numeric * ${NOISE_EVENTS} / ${total}) as noise,
                 ${startMs}::bigint + floor((g - 1 + random()) * ${yearMs}::numeric / ${total})::bigint as ms,
                 width_bucket(random(), ${sql.array([...CUMULATIVE])}::float8[]) + 1 as ti,
                 random() as r
          from generate_series(${low}::int, ${high}::int) as g
        ) s
        cross join lateral (
          select (${sql.array([...EVENT_TYPES])}::text[])[s.ti] as type,
                 (${sql.array([...aggregateTypes])}::text[])[s.ti] as aggregate_type,
                 (${sql.array([...prefixes])}::text[])[s.ti] || 'prod_' || case when s.noise then 'n' else 'm' end
                   || lpad(floor(random() * (case when s.noise then ${sql.array([...noisePools])}::int[] else ${sql.array([...mainPools])}::int[] end)[s.ti])::text, 10, '0')
                   as aggregate_id
        ) t`;
      // One line rewritten in a terminal, one line per batch in a log.
      const progress = `  inserted ${int(high)} / ${int(total)} rows (${seconds(phase)})`;
      if (process.stdout.isTTY) process.stdout.write(`\r${progress}${high === total ? "\n" : ""}`);
      else console.log(progress);
    }

    const indexPhase = performance.now();
    await sql`set maintenance_work_mem = '256MB'`;
    for (const index of indexes) await sql.unsafe(index.indexdef);
    for (const fk of foreignKeys) await sql.unsafe(`alter table events add constraint "${fk.conname}" ${fk.def}`);
    log(`re-created ${indexes.length} indexes and ${foreignKeys.length} foreign key (${seconds(indexPhase)})`);
    const vacuumPhase = performance.now();
    // VACUUM as well as ANALYZE: autovacuum does both for an insert-only table in steady state, and
    // the visibility map lets count(*) use index-only scans.
    await sql`vacuum (analyze) events`;
    log(`vacuum (analyze) events (${seconds(vacuumPhase)}); data ready in ${seconds(phase)}`);

    const [size] = await sql<{ table: string; indexes: string }[]>`
      select pg_size_pretty(pg_table_size('events')) as table, pg_size_pretty(pg_indexes_size('events')) as indexes`;
    const [shape] = await sql<{ aggregates: string; types: string }[]>`
      select count(distinct aggregate_id) as aggregates, count(distinct type) as types from events where account_id = ${MAIN_ACCOUNT}`;
    const typeCounts = await sql<{ type: string; n: string }[]>`
      select type, count(*) as n from events where account_id = ${MAIN_ACCOUNT} group by type order by n desc`;
    const aggregateTypeCounts = await sql<{ aggregate_type: string; n: string }[]>`
      select aggregate_type, count(*) as n from events where account_id = ${MAIN_ACCOUNT} group by aggregate_type order by n desc`;
    log(
      `events table ${size?.table}, its indexes ${size?.indexes}; measured account: ${int(Number(shape?.aggregates))} aggregates, ` +
        `${shape?.types} types (most common ${typeCounts[0]?.type} ${int(Number(typeCounts[0]?.n))}, ` +
        `rarest ${typeCounts.at(-1)?.type} ${int(Number(typeCounts.at(-1)?.n))})`,
    );

    // ---- filter values: real ids of the measured account, random types
    phase = performance.now();
    const eventIds = (await sql<{ id: string }[]>`
      select id from events where account_id = ${MAIN_ACCOUNT} order by random() limit 1000`).map((row) => row.id);
    const aggregates = (await sql<{ aggregate_id: string; aggregate_type: string }[]>`
      select aggregate_id, aggregate_type from events where account_id = ${MAIN_ACCOUNT} order by random() limit 1000`).map(
      (row) => ({ id: row.aggregate_id, type: row.aggregate_type as AggregateType }),
    );
    const deepAggregateTypes = aggregateTypeCounts
      .filter((row) => Number(row.n) >= DEEP_OFFSET + PAGE_SIZE)
      .map((row) => row.aggregate_type as AggregateType);
    log(`sampled filter values (${seconds(phase)})`);

    type Scenario = { name: string; filters: () => EventFilters; offset: number; runs: number };
    const scenarios: Scenario[] = [
      { name: "none", filters: () => ({}), offset: 0, runs: RUNS },
      { name: "event_id", filters: () => ({ event_id: pick(eventIds) }), offset: 0, runs: RUNS },
      { name: "aggregate_id", filters: () => ({ aggregate_id: pick(aggregates).id }), offset: 0, runs: RUNS },
      { name: "aggregate_type", filters: () => ({ aggregate_type: pick(AGGREGATE_TYPES) }), offset: 0, runs: RUNS },
      { name: "event_type", filters: () => ({ event_type: pick(EVENT_TYPES) }), offset: 0, runs: RUNS },
      {
        name: "aggregate_type+event_type",
        filters: () => {
          const type = pick(EVENT_TYPES);
          return { aggregate_type: aggregateTypeOf(type), event_type: type };
        },
        offset: 0,
        runs: RUNS,
      },
      {
        name: "aggregate_id+event_type",
        filters: () => {
          const aggregate = pick(aggregates);
          return { aggregate_id: aggregate.id, event_type: pick(EVENT_TYPES.filter((type) => aggregateTypeOf(type) === aggregate.type)) };
        },
        offset: 0,
        runs: RUNS,
      },
    ];
    if (EVENTS >= DEEP_OFFSET + PAGE_SIZE) {
      scenarios.push({ name: `none, offset ${int(DEEP_OFFSET)}`, filters: () => ({}), offset: DEEP_OFFSET, runs: DEEP_RUNS });
    }
    if (deepAggregateTypes.length > 0) {
      scenarios.push({
        name: `aggregate_type, offset ${int(DEEP_OFFSET)}`,
        filters: () => ({ aggregate_type: pick(deepAggregateTypes) }),
        offset: DEEP_OFFSET,
        runs: DEEP_RUNS,
      });
    }

    // ---- measure
    type Result = { scenario: Scenario; page: Stats; count: Stats; matches: number; rows: number; pagePlan: string; countPlan: string };
    const results: Result[] = [];
    const measurePhase = performance.now();
    for (const scenario of scenarios) {
      const explained = listQueries(db, scenario.filters(), scenario.offset);
      const explain = async (query: { toSQL: () => { sql: string; params: unknown[] } }) => {
        const { sql: text, params } = query.toSQL();
        const rows = await sql.unsafe<{ "QUERY PLAN": string }[]>(`explain ${text}`, params as postgres.ParameterOrJSON<never>[]);
        return planSummary(rows.map((row) => row["QUERY PLAN"]));
      };
      const pagePlan = await explain(explained.page);
      const countPlan = await explain(explained.count);

      for (let i = 0; i < WARMUP; i++) {
        const queries = listQueries(db, scenario.filters(), scenario.offset);
        await queries.page;
        await queries.count;
      }
      const pageTimes: number[] = [];
      const countTimes: number[] = [];
      let matches = 0;
      let rows = 0;
      for (let i = 0; i < scenario.runs; i++) {
        const queries = listQueries(db, scenario.filters(), scenario.offset);
        let t0 = performance.now();
        const page = await queries.page;
        pageTimes.push(performance.now() - t0);
        t0 = performance.now();
        const [totals] = await queries.count;
        countTimes.push(performance.now() - t0);
        rows += page.length;
        matches += totals?.total ?? 0;
      }
      results.push({
        scenario,
        page: stats(pageTimes),
        count: stats(countTimes),
        matches: matches / scenario.runs,
        rows: rows / scenario.runs,
        pagePlan,
        countPlan,
      });
      log(`${scenario.name}: ${scenario.runs} runs done (${seconds(measurePhase)})`);
    }

    // ---- report
    console.log("");
    console.log(
      `Latency in ms, measured at the client (one connection, prepared statements, idle server), ` +
        `${int(EVENTS)} events on the measured account:`,
    );
    const header = [
      pad("filter", 34),
      padLeft("runs", 5),
      padLeft("avg matches", 12),
      padLeft("rows", 5),
      " │ page  p50", padLeft("p95", 7), padLeft("p99", 7),
      " │ count p50", padLeft("p95", 7), padLeft("p99", 7),
    ].join("");
    console.log(header);
    console.log("─".repeat(header.length));
    for (const r of results) {
      console.log(
        [
          pad(r.scenario.name, 34),
          padLeft(String(r.scenario.runs), 5),
          padLeft(int(r.matches), 12),
          padLeft(r.rows.toFixed(0), 5),
          " │ ", padLeft(ms(r.page.p50), 9), padLeft(ms(r.page.p95), 7), padLeft(ms(r.page.p99), 7),
          " │ ", padLeft(ms(r.count.p50), 9), padLeft(ms(r.count.p95), 7), padLeft(ms(r.count.p99), 7),
        ].join(""),
      );
    }
    console.log("");
    console.log("Plans (EXPLAIN, top nodes, with one of the run's filter values):");
    for (const r of results) {
      console.log(`  ${r.scenario.name}`);
      console.log(`    page : ${r.pagePlan}`);
      console.log(`    count: ${r.countPlan}`);
    }

    console.log("");
    const unfiltered = results.find((r) => r.scenario.name === "none");
    if (unfiltered) {
      const ratio = unfiltered.count.p50 / Math.max(unfiltered.page.p50, 0.001);
      if (ratio >= 3) {
        console.log(
          `Note: count(*) over the unfiltered account is the expensive part: p50 ${ms(unfiltered.count.p50)} ms ` +
            `(${ratio.toFixed(0)}× the page's ${ms(unfiltered.page.p50)} ms) to count ${int(unfiltered.matches)} rows. ` +
            `listEvents runs page and count in parallel, so the list call is about as slow as the count; ` +
            `the count grows with the account, the page does not.`,
        );
      } else {
        console.log(
          `Note: count(*) over the unfiltered account (p50 ${ms(unfiltered.count.p50)} ms for ${int(unfiltered.matches)} rows) ` +
            `is not much dearer than the page (p50 ${ms(unfiltered.page.p50)} ms) at this size.`,
        );
      }
    }
    const deep = results.find((r) => r.scenario.offset > 0 && r.scenario.name.startsWith("none"));
    if (deep && unfiltered) {
      console.log(
        `Deep page: offset ${int(DEEP_OFFSET)} takes p50 ${ms(deep.page.p50)} ms against ${ms(unfiltered.page.p50)} ms ` +
          `for the first page (the skipped rows are still read from the index and the table).`,
      );
    }
    console.log(`Total time ${seconds(started)}.`);
  } finally {
    process.removeListener("SIGINT", interrupt);
    process.removeListener("SIGTERM", interrupt);
    await drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
