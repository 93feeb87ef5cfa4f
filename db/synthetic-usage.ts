import { randomBytes } from "node:crypto";
import type postgres from "postgres";

/**
 * Bulk-loads synthetic usage events for `npm run usage:load` and the usage benchmark: n events
 * spread evenly over [from, to), round-robin over the account's active meters and its customers,
 * straight into the partitioned table, the dedup table and the hourly aggregates (as ingestion
 * keeps them), in chunks; then ANALYZE. Identifiers are `syn_<tag>_<n>` and payloads
 * `{"synthetic": true}`: usage events are no domain events, so nothing reaches the events list.
 */
export type UsageLoadOptions = {
  accountId: string;
  events: number;
  from: Date;
  to: Date;
  chunk?: number;
  onProgress?: (done: number) => void;
};

const monthStart = (date: Date, offset = 0) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1));

/** The monthly partitions [from, to] needs (the app makes them the same way: lib/usage/partitions.ts). */
export async function ensureUsagePartitionsFor(sql: postgres.Sql, from: Date, to: Date): Promise<void> {
  for (let month = monthStart(from); month.getTime() <= to.getTime(); month = monthStart(month, 1)) {
    const name = `usage_events_${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, "0")}`;
    const [exists] = await sql`select 1 from pg_class where relname = ${name}`;
    if (!exists) {
      await sql.unsafe(
        `create table "${name}" partition of usage_events for values from ('${month.toISOString()}') to ('${monthStart(month, 1).toISOString()}')`,
      );
    }
  }
}

export async function loadSyntheticUsage(sql: postgres.Sql, options: UsageLoadOptions): Promise<number> {
  const { accountId, events } = options;
  const meters = await sql<{ id: string; aggregation: string }[]>`
    select id, aggregation from meters where account_id = ${accountId} and active order by created, id`;
  const customers = await sql<{ id: string }[]>`
    select id from customers where account_id = ${accountId} and deleted_at is null order by created, id limit 10000`;
  if (meters.length === 0 || customers.length === 0) {
    throw new Error(`Account ${accountId} needs at least one active meter and one customer to load usage into.`);
  }
  await ensureUsagePartitionsFor(sql, options.from, options.to);
  const tag = randomBytes(4).toString("hex");
  const chunk = options.chunk ?? 50_000;
  const from = options.from.toISOString();
  const spanMs = options.to.getTime() - options.from.getTime();
  const meterIds = meters.map((m) => m.id);
  const aggregations = meters.map((m) => m.aggregation);
  const customerIds = customers.map((c) => c.id);
  for (let start = 0; start < events; start += chunk) {
    const end = Math.min(events, start + chunk) - 1;
    await sql`
      with rows as (
        select g, (${meterIds}::text[])[1 + g % ${meterIds.length}] as meter_id,
          (${aggregations}::text[])[1 + g % ${meterIds.length}] = 'unique_count' as is_unique,
          (${customerIds}::text[])[1 + (g / ${meterIds.length}) % ${customerIds.length}] as customer_id,
          ${from}::timestamptz + (${spanMs}::float8 * g / ${events}) * interval '1 millisecond' as ts
        from generate_series(${start}::bigint, ${end}::bigint) as g
      ), ev as (
        insert into usage_events (account_id, identifier, meter_id, customer_id, ts, value, unique_value, payload, received)
        select ${accountId}, 'syn_' || ${tag} || '_' || g, meter_id, customer_id, ts, 1 + g % 10,
          case when is_unique then 'u' || (g % 1000) end, '{"synthetic":true}', now()
        from rows
        returning identifier, meter_id, customer_id, ts, value, unique_value, received
      ), keys as (
        insert into usage_event_keys (account_id, identifier, body_hash, ts, received)
        select ${accountId}, identifier, 'synthetic', ts, received from ev
      ), uniques as (
        insert into usage_hourly_unique (account_id, meter_id, customer_id, hour, value, events)
        select ${accountId}, meter_id, customer_id, date_trunc('hour', ts, 'UTC'), unique_value, count(*)
        from ev where unique_value is not null group by 2, 3, 4, 5
        on conflict (account_id, meter_id, customer_id, hour, value) do update set events = usage_hourly_unique.events + excluded.events
      )
      insert into usage_hourly (account_id, meter_id, customer_id, hour, sum_value, event_count, max_value, last_ts, last_value)
      select ${accountId}, meter_id, customer_id, date_trunc('hour', ts, 'UTC'), sum(value), count(*), max(value), max(ts),
        (array_agg(value order by ts desc))[1]
      from ev group by 2, 3, 4
      on conflict (account_id, meter_id, customer_id, hour) do update set
        sum_value = usage_hourly.sum_value + excluded.sum_value,
        event_count = usage_hourly.event_count + excluded.event_count,
        max_value = greatest(usage_hourly.max_value, excluded.max_value),
        last_value = case when usage_hourly.last_ts is null or excluded.last_ts >= usage_hourly.last_ts
          then excluded.last_value else usage_hourly.last_value end,
        last_ts = greatest(usage_hourly.last_ts, excluded.last_ts)`;
    options.onProgress?.(end + 1);
  }
  // Autovacuum is off on the benchmark machines: the planner must know the loaded rows.
  await sql`analyze usage_events`;
  await sql`analyze usage_event_keys`;
  await sql`analyze usage_hourly`;
  await sql`analyze usage_hourly_unique`;
  return events;
}
