import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { AGGREGATE_TYPES, EVENT_CATALOGUE, type AggregateType } from "@/lib/events/catalogue";
import { ID_PREFIXES } from "@/lib/id-prefixes";
import { MANIFEST_AGGREGATE_ID_KINDS, MANIFEST_AGGREGATE_WEIGHTS } from "@/lib/manifests.generated";
import { DAY_MS, realNow } from "@/lib/time";

/**
 * Synthetic events for benchmarks and checks (`npm run events:load`), written with set-based SQL
 * (INSERT … SELECT generate_series) in batches, each batch in one statement that also adds to
 * event_counts, so totals are exact at every moment, even with the application writing meanwhile.
 *
 * Shape: n events over `entities` = n / 10 synthetic entities (10 events each on average). Row g
 * of the load belongs to entity g mod entities and is that entity's (g div entities)-th event;
 * `created` grows with g. So every entity's events are in time order, its first one is its
 * `<aggregate>.created` event, and the position in its timeline is a column of the batch's SELECT
 * (`position`, 1, 2, 3, …): a per-entity column such as `sequence` is one line to add.
 */

/** How busy each entity type is: a skewed, plausible mix. */
export const AGGREGATE_WEIGHT: Record<AggregateType, number> = {
  payment: 3,
  checkout_session: 1,
  payment_intent: 2,
  subscription: 2,
  invoice: 3,
  customer: 2,
  customer_discount: 0.3,
  coupon: 0.2,
  price: 0.3,
  product: 0.2,
  refund: 0.5,
  api_token: 0.02,
  webhook_endpoint: 0.02,
  user: 0.02,
  member: 0.01,
  account_settings: 0.05,
  tax_rate: 0.05,
  meter: 0.1,
  feature: 0.05,
  product_feature: 0.05,
  customer_entitlements: 0.5,
  portal_configuration: 0.01,
  credit_note: 0.05,
  customer_balance_transaction: 0.1,
  subscription_change_request: 0.05,
  payment_processor: 0.001,
  // The domain folders' manifests (lib/<domain>/manifest.ts).
  ...MANIFEST_AGGREGATE_WEIGHTS,
};

/** The id prefix of each entity type (lib/ids.ts). */
export const AGGREGATE_PREFIX = {
  payment: "py_",
  checkout_session: "cs_",
  payment_intent: "pi_",
  subscription: "sub_",
  invoice: "in_",
  customer: "cus_",
  customer_discount: "di_",
  coupon: "cpn_",
  price: "price_",
  product: "prod_",
  refund: "re_",
  api_token: "key_",
  webhook_endpoint: "whe_",
  user: "user_",
  member: "user_",
  account_settings: "acc_",
  tax_rate: "txr_",
  meter: "mtr_",
  feature: "feat_",
  product_feature: "prodft_",
  customer_entitlements: "cus_",
  portal_configuration: "acc_",
  credit_note: "cn_",
  customer_balance_transaction: "cbtxn_",
  subscription_change_request: "scr_",
  payment_processor: "acc_",
  // The domain folders' manifests: the prefix of their id kind.
  ...Object.fromEntries(Object.entries(MANIFEST_AGGREGATE_ID_KINDS).map(([aggregate, kind]) => [aggregate, ID_PREFIXES[kind]])),
} as Record<AggregateType, string>;

export type LoadOptions = {
  accountId: string;
  events: number;
  /** Times spread evenly from `from` to `to` (default: the year before now). */
  from?: Date;
  to?: Date;
  batch?: number;
  /**
   * Batches written at once, each by its own connection of `sql`'s pool (which must allow that
   * many). PostgreSQL runs an INSERT … SELECT on one core: two batches at once loaded a million
   * events in 19 s against 27 s on a quiet 2-core machine (docs/performance.md). Default 1.
   */
  connections?: number;
  /** Called after each batch with how many events are written so far. */
  onProgress?: (inserted: number) => void;
  /**
   * ANALYZE the tables loaded (default): until then the planner's statistics do not know the
   * account's rows. Off only in tests of plans under stale statistics.
   */
  analyze?: boolean;
};

/** Catalogue as flat SQL arrays: entity type i owns types[start[i] … start[i] + length[i] - 1]. */
function catalogueArrays() {
  const types: string[] = [];
  const start: number[] = [];
  const length: number[] = [];
  const createdAt: number[] = [];
  for (const aggregate of AGGREGATE_TYPES) {
    const group = EVENT_CATALOGUE.find((entry) => entry.aggregateType === aggregate)!;
    start.push(types.length + 1);
    length.push(group.types.length);
    const created = group.types.findIndex((type) => type.endsWith(".created"));
    createdAt.push(types.length + 1 + Math.max(0, created));
    types.push(...group.types);
  }
  const weights = AGGREGATE_TYPES.map((aggregate) => AGGREGATE_WEIGHT[aggregate]);
  const sum = weights.reduce((a, b) => a + b, 0);
  let running = 0;
  const cumulative = weights.slice(0, -1).map((weight) => (running += weight / sum));
  return {
    types,
    start,
    length,
    createdAt,
    cumulative,
    aggregates: [...AGGREGATE_TYPES],
    prefixes: AGGREGATE_TYPES.map((aggregate) => AGGREGATE_PREFIX[aggregate]),
  };
}

/**
 * Runs a bulk load with the events table's secondary indexes dropped, then builds them again from
 * their own definitions (pg_indexes), also when the load fails: one sorted build of each index over
 * the loaded rows costs far less than keeping seven indexes row by row (a million events: 70 s of
 * PostgreSQL's CPU maintained, docs/performance.md). For databases no app writes to meanwhile (tests'
 * own, benchmarks'): until the load ends, the events have only their primary key.
 */
export async function withEventIndexesRebuilt<T>(sql: postgres.Sql, load: () => Promise<T>): Promise<T> {
  const indexes = await sql<{ indexname: string; indexdef: string }[]>`
    select indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename = 'events' and indexname <> 'events_pkey'`;
  for (const index of indexes) await sql.unsafe(`drop index "${index.indexname}"`);
  try {
    return await load();
  } finally {
    // One transaction, so the memory setting holds on the connection that builds (a pool has several).
    await sql.begin(async (tx) => {
      await tx`set local maintenance_work_mem = '512MB'`;
      for (const index of indexes) await tx.unsafe(index.indexdef);
    });
  }
}

/** Inserts `events` synthetic events into an existing account; returns how many it wrote. */
export async function loadSyntheticEvents(sql: postgres.Sql, options: LoadOptions): Promise<number> {
  const environment = /^acc_([a-z]+)_/.exec(options.accountId)?.[1];
  if (!environment) throw new Error(`Not an account id: ${options.accountId}`);
  const [account] = await sql`select id from accounts where id = ${options.accountId}`;
  if (!account) throw new Error(`No such account: ${options.accountId}`);

  const n = options.events;
  const entities = Math.max(1, Math.floor(n / 10));
  const to = (options.to ?? realNow()).getTime();
  const from = (options.from ?? new Date(to - 365 * DAY_MS)).getTime();
  const batch = options.batch ?? 50_000;
  // Distinguishes this load's ids (events and entities) from every other load's.
  const tag = randomBytes(4).toString("hex");
  const c = catalogueArrays();

  // Batches taken in order from one cursor by `connections` writers. Two batches at once upsert
  // the same event_sequences and event_counts keys (an entity's events span batches; a day falls
  // in two). Each statement locks its keys in key order (the ORDER BYs below), one table after the
  // other as PostgreSQL runs it: event_counts in the main query, then event_sequences, a
  // data-modifying CTE nothing reads, at the statement's end. So two wait on each other and never
  // deadlock (tests/api/list-paging.test.ts loads so over shared keys).
  let nextLow = 1;
  let inserted = 0;
  const writeBatch = async (low: number) => {
    const high = Math.min(n, low + batch - 1);
    await sql`
      with rows as (
        select g,
               (g - 1) % ${entities} as entity,
               (g - 1) / ${entities} + 1 as position,
               ${from}::bigint + floor((g - 1 + random() * 0.999) * ${to - from}::numeric / ${n})::bigint as ms
        from generate_series(${low}::bigint, ${high}::bigint) as g
      ), typed as (
        select r.*,
               a.ai,
               case when r.position = 1 then (${c.createdAt}::int[])[a.ai]
                    else (${c.start}::int[])[a.ai] + floor(random() * (${c.length}::int[])[a.ai])::int end as ti
        from rows r
        cross join lateral (
          select width_bucket(((r.entity * 2654435761) % 1000003) / 1000003.0, ${c.cumulative}::float8[]) + 1 as ai
        ) a
      ), inserted as (
        insert into events (id, account_id, type, aggregate_type, aggregate_id, data, previous_data,
                            metadata, correlation_id, version, sequence, created, actor_type, actor_id)
        select
          ${`evt_${environment}_`} || lpad(to_hex(t.ms), 12, '0') || ${tag} || lpad(to_hex(t.g), 9, '0'),
          ${options.accountId},
          (${c.types}::text[])[t.ti],
          (${c.aggregates}::text[])[t.ai],
          (${c.prefixes}::text[])[t.ai] || ${`${environment}_ld${tag}`} || lpad(t.entity::text, 10, '0'),
          jsonb_build_object('object', (${c.aggregates}::text[])[t.ai], 'livemode', ${environment === "prod"},
            'status', 'active', 'amount', t.g % 100000, 'currency', 'usd', 'position', t.position, 'metadata', '{}'::jsonb),
          case when t.position = 1 then null else jsonb_build_object('object', (${c.aggregates}::text[])[t.ai],
            'status', 'draft', 'amount', t.g % 100000, 'currency', 'usd', 'metadata', '{}'::jsonb) end,
          -- Not emitted by the service: the test suites' event check (tests/helpers/event-check.ts) skips these.
          '{"synthetic": true}'::jsonb,
          ${`req_${environment}_load${tag}`},
          1,
          t.position,
          to_timestamp(t.ms / 1000.0),
          'system',
          null
        from typed t
        returning account_id, type, aggregate_type, aggregate_id, sequence, created
      ), sequences as (
        insert into event_sequences (account_id, aggregate_id, last_sequence)
        select account_id, aggregate_id, max(sequence) from inserted group by 1, 2 order by 1, 2
        on conflict (account_id, aggregate_id)
          do update set last_sequence = greatest(event_sequences.last_sequence, excluded.last_sequence)
      )
      insert into event_counts (account_id, dimension, value, day, shard, count)
      select account_id, d.dimension, d.value, (created at time zone 'UTC')::date, 0, count(*)
      from inserted
      cross join lateral (values ('all', ''), ('aggregate_type', aggregate_type), ('type', type)) as d(dimension, value)
      group by 1, 2, 3, 4
      order by 1, 2, 3, 4
      on conflict (account_id, dimension, value, day, shard) do update set count = event_counts.count + excluded.count`;
    inserted += high - low + 1;
    options.onProgress?.(inserted);
  };
  await Promise.all(
    Array.from({ length: Math.max(1, options.connections ?? 1) }, async () => {
      for (let low = nextLow; low <= n; low = nextLow) {
        nextLow += batch;
        await writeBatch(low);
      }
    }),
  );
  if (options.analyze !== false) await sql`analyze events, event_sequences, event_counts`;
  return n;
}
