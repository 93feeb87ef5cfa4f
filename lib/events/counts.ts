import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { countDay, dayBucketedTotal, type CreatedRange, type ExactCount, type WholeDays } from "@/db/list-totals";
import { eventCounts } from "@/db/schema";
import { aggregateTypeOf, type EventType } from "./catalogue";
import type { EventFilters } from "@/lib/events-api/schema";

/**
 * Rows per (account, dimension, value, day) that writers spread over: enough that one account's
 * concurrent writers (the clock's lanes, lib/clock/due.ts, beside the background charges'
 * outcomes and the requests) mostly update different rows, few enough that a reader sums a
 * handful. The shard has no meaning beyond that. A transaction holds its shard's rows until it
 * commits: with 8 shards drawn at random, 8 renewals side by side waited on each other's shard
 * more often than not (docs/performance.md, the Stripe renewals row).
 */
export const EVENT_COUNT_SHARDS = 16;
const shardOfTransaction = new WeakMap<Executor, number>();
/** Shards are dealt in turn, so this process's concurrent transactions take different ones (up to EVENT_COUNT_SHARDS). */
let lastShard = 0;

/**
 * The statement that adds one event to the account's totals, in the transaction that writes it:
 * one row per dimension (all, its aggregate type, its type). `aggregate_type` + `type` needs no
 * row of its own, since a type belongs to exactly one aggregate type. emitEvent runs it as one
 * part of its single statement; its text never changes (the values are parameters).
 */
export function countUpsert(tx: Executor, event: { accountId: string; type: EventType; created: Date }): SQL {
  const day = countDay(event.created);
  // One shard per transaction: a change that emits several events then locks rows of one shard
  // only, always its `all` row first, so two such transactions cannot deadlock.
  let shard = shardOfTransaction.get(tx);
  if (shard === undefined) shardOfTransaction.set(tx, (shard = lastShard = (lastShard + 1) % EVENT_COUNT_SHARDS));
  const row = (dimension: string, value: string) => sql`(${event.accountId}, ${dimension}, ${value}, ${day}::date, ${shard}::smallint, 1)`;
  return sql`insert into ${eventCounts} (account_id, dimension, value, day, shard, count)
    values ${row("all", "")}, ${row("aggregate_type", aggregateTypeOf(event.type))}, ${row("type", event.type)}
    on conflict (account_id, dimension, value, day, shard) do update set count = ${eventCounts}.count + excluded.count`;
}

/** Adds one event to the account's totals (see countUpsert). */
export async function countEvent(tx: Executor, event: { accountId: string; type: EventType; created: Date }): Promise<void> {
  await tx.execute(countUpsert(tx, event));
}

/** The counter rows answering a filter, or null when none can (an id filter: one event, or one entity's timeline; count its rows). */
function counterOf(filters: EventFilters): { dimension: "all" | "aggregate_type" | "type"; value: string } | "none" | null {
  if (filters.event_id || filters.aggregate_id) return null;
  if (filters.event_type) {
    const type = filters.event_type as EventType;
    if (filters.aggregate_type && aggregateTypeOf(type) !== filters.aggregate_type) return "none";
    return { dimension: "type", value: type };
  }
  if (filters.aggregate_type) return { dimension: "aggregate_type", value: filters.aggregate_type };
  return { dimension: "all", value: "" };
}

/**
 * The exact number of the account's events matching `filters` within `range`, as an SQL
 * expression (pageOf puts it in the page's statement).
 *
 * - `event_id` / `aggregate_id`: `count(*)` over their index (`exact`): one event, or one
 *   entity's timeline (hundreds of events for a long-lived subscription; a pathological entity
 *   with 100,000 events costs about 10 ms).
 * - otherwise: the counters, summed over whole UTC days within the range, plus an exact count of
 *   the partial days at its edges (dayBucketedTotal).
 */
export function eventTotal(accountId: string, filters: EventFilters, range: CreatedRange, exact: ExactCount): SQL {
  const counter = counterOf(filters);
  if (counter === "none") return sql`0`;
  if (counter === null) return exact(range.gte, range.lt);
  const wholeDays: WholeDays = (from, to) =>
    sql`coalesce((select sum(${eventCounts.count}) from ${eventCounts} where ${and(
      eq(eventCounts.accountId, accountId),
      eq(eventCounts.dimension, counter.dimension),
      eq(eventCounts.value, counter.value),
      from ? gte(eventCounts.day, from) : undefined,
      to ? lt(eventCounts.day, to) : undefined,
    )}), 0)`;
  return dayBucketedTotal(range, wholeDays, exact);
}

/**
 * Recomputes an account's counters from its events (a repair, e.g. after events were edited by
 * hand). Writers of every account wait while it runs: the lock lets each event's transaction
 * either finish before the recount reads the events or add its count after it.
 */
export async function recountEvents(executor: Executor, accountId: string): Promise<void> {
  await executor.transaction(async (tx) => {
    await tx.execute(sql`lock table event_counts in share row exclusive mode`);
    await tx.delete(eventCounts).where(eq(eventCounts.accountId, accountId));
    await tx.execute(sql`
      insert into event_counts (account_id, dimension, value, day, shard, count)
      select account_id, d.dimension, d.value, (created at time zone 'UTC')::date, 0, count(*)
      from events
      cross join lateral (values ('all', ''), ('aggregate_type', aggregate_type), ('type', type)) as d(dimension, value)
      where account_id = ${accountId}
      group by 1, 2, 3, 4`);
  });
}
