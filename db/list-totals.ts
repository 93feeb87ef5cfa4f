import { sql, type SQL } from "drizzle-orm";
import { DAY_MS } from "@/lib/time";
import { rowsOf } from "@/lib/rows";
import type { Executor } from "./client";
import { listCountDeltas, listCounts } from "./schema";

/** The `created` range of a page request, as the totals of a list need it. */
export type CreatedRange = { gte?: Date; lt?: Date };

/** The UTC day a row is counted under, as `YYYY-MM-DD`. */
export function countDay(created: Date): string {
  return created.toISOString().slice(0, 10);
}

const startOfDay = (time: Date) => new Date(Math.floor(time.getTime() / DAY_MS) * DAY_MS);
const nextDay = (time: Date) => {
  const start = startOfDay(time);
  return start.getTime() === time.getTime() ? start : new Date(start.getTime() + DAY_MS);
};

/** Counter rows summed over the UTC days `[from, to)` (either end open). */
export type WholeDays = (from: string | undefined, to: string | undefined) => SQL;
/** An exact `count(*)` of the list's rows created within `[gte, lt)` (either end open). */
export type ExactCount = (gte: Date | undefined, lt: Date | undefined) => SQL;

/**
 * The exact total of a list whose counts are kept per UTC day, as one SQL expression (so the
 * total and the page it goes with read one snapshot): the counters of the whole days within
 * `range`, plus an exact count of the at most two partial days at its edges, which is bounded by
 * one day's rows of the list whatever the range's width.
 */
export function dayBucketedTotal(range: CreatedRange, wholeDays: WholeDays, exact: ExactCount): SQL {
  if (range.gte && range.lt && range.gte >= range.lt) return sql`0`;
  // Whole days: [firstDay, endDay). Partial edges: [gte, firstDay) and [endDay, lt).
  const firstDay = range.gte ? nextDay(range.gte) : undefined;
  const endDay = range.lt ? startOfDay(range.lt) : undefined;
  if (firstDay && endDay && firstDay > endDay) return exact(range.gte, range.lt); // within one day
  const parts = [wholeDays(firstDay && countDay(firstDay), endDay && countDay(endDay))];
  if (range.gte && firstDay && range.gte < firstDay) parts.push(exact(range.gte, firstDay));
  if (range.lt && endDay && endDay < range.lt) parts.push(exact(endDay, range.lt));
  return sql`(${sql.join(parts, sql` + `)})`;
}

/**
 * A list kept by the list-count triggers (generated from db/list-declarations.ts): which list,
 * whose rows (`scopeId`: the account, or the endpoint of an endpoint's deliveries) and the key of
 * the request's filters (countKey).
 */
export type CountedList = { list: string; scopeId: string; key: string };

/** The total of a counted list within `range`: list_counts plus the deltas not yet folded in. */
export function countedListTotal(counted: CountedList, range: CreatedRange, exact: ExactCount): SQL {
  const { key } = counted;
  const wholeDays: WholeDays = (from, to) => {
    const of = (table: typeof listCounts | typeof listCountDeltas) =>
      sql`${table.scopeId} = ${counted.scopeId} and ${table.list} = ${counted.list} and ${table.key} = ${key}
        ${from ? sql`and ${table.day} >= ${from}::date` : sql``} ${to ? sql`and ${table.day} < ${to}::date` : sql``}`;
    return sql`(coalesce((select sum(${listCounts.count}) from ${listCounts} where ${of(listCounts)}), 0)
      + coalesce((select sum(${listCountDeltas.delta}) from ${listCountDeltas} where ${of(listCountDeltas)}), 0))`;
  };
  return dayBucketedTotal(range, wholeDays, exact);
}

/** Deltas folded in per statement: a bounded transaction, however far behind the compaction is. */
const COMPACTION_BATCH = 50_000;

/**
 * Folds the pending deltas into list_counts, in batches. Each batch is one statement: it deletes
 * the deltas it read and adds their sums, so a total (one statement too) sees either both or
 * neither. Concurrent compactions are safe: a delta deleted by one is skipped by the other.
 * Returns how many deltas were folded in.
 */
export async function compactListCounts(executor: Executor): Promise<number> {
  let folded = 0;
  for (;;) {
    const [row] = rowsOf<{ moved: number }>(
      await executor.execute(sql`
        with moved as (
          delete from list_count_deltas
          where ctid = any(array(select ctid from list_count_deltas limit ${COMPACTION_BATCH}))
          returning scope_id, list, key, day, delta
        ), summed as (
          insert into list_counts (scope_id, list, key, day, count)
          select scope_id, list, key, day, sum(delta) from moved group by 1, 2, 3, 4
          on conflict (scope_id, list, key, day) do update set count = list_counts.count + excluded.count
        )
        select count(*)::int as moved from moved`),
    );
    const moved = row?.moved ?? 0;
    folded += moved;
    if (moved < COMPACTION_BATCH) return folded;
  }
}
