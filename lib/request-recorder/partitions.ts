import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { DAY_MS } from "@/lib/time";
import { rowsOf } from "@/lib/rows";

/**
 * The request log's daily partitions (migration 0026: `request_logs` is `PARTITION BY RANGE
 * (created)`). Partition `request_logs_YYYYMMDD` holds the UTC day `[D, D + 1)`. The writer makes
 * the days it is about to write (and two days ahead); retention drops whole partitions, which
 * costs a catalogue change instead of a delete of millions of rows (docs/request-logs.md).
 */
const PARTITION_NAME = /^request_logs_(\d{4})(\d{2})(\d{2})$/;

/** `2026-11-26` for any instant of that UTC day. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

function partitionName(day: string): string {
  return `request_logs_${day.replaceAll("-", "")}`;
}

function nextDay(day: string): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));
}

/** Creates the partition of each day (idempotent; two processes may race to make one). */
export async function ensurePartitions(db: Executor, days: Iterable<string>): Promise<void> {
  for (const day of new Set(days)) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`Not a day: ${day}`);
    const statement = sql.raw(
      `create table if not exists "${partitionName(day)}" partition of "request_logs" for values from ('${day}T00:00:00Z') to ('${nextDay(day)}T00:00:00Z')`,
    );
    try {
      await db.execute(statement);
    } catch (error) {
      // Another process created it between our check and our create: 42P07 (exists), 23505 (its catalogue row).
      const code = (error as { cause?: { code?: string }; code?: string }).cause?.code ?? (error as { code?: string }).code;
      if (code !== "42P07" && code !== "23505") throw error;
    }
  }
}

/** The days that have a partition, oldest first. */
export async function partitionDays(db: Executor): Promise<string[]> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      select child.relname as name from pg_inherits
      join pg_class child on child.oid = pg_inherits.inhrelid
      join pg_class parent on parent.oid = pg_inherits.inhparent
      where parent.relname = 'request_logs'`),
  );
  return rows
    .flatMap(({ name }) => {
      const match = PARTITION_NAME.exec(name);
      return match ? [`${match[1]}-${match[2]}-${match[3]}`] : [];
    })
    .sort();
}

/**
 * Drops every partition whose whole day lies more than `retentionDays` days before `now`: the
 * log keeps at least `retentionDays` days (up to one more, the oldest partly expired day).
 * Returns the days dropped.
 */
export async function dropExpiredPartitions(db: Executor, now: Date, retentionDays: number): Promise<string[]> {
  const oldestKept = utcDay(new Date(now.getTime() - retentionDays * DAY_MS));
  const expired = (await partitionDays(db)).filter((day) => day < oldestKept);
  for (const day of expired) await db.execute(sql.raw(`drop table if exists "${partitionName(day)}"`));
  return expired;
}

/** Today's partition and the next two days', then the expired ones dropped. */
export async function maintainPartitions(db: Executor, now: Date, retentionDays: number): Promise<string[]> {
  const today = utcDay(now);
  await ensurePartitions(db, [today, nextDay(today), nextDay(nextDay(today))]);
  return dropExpiredPartitions(db, now, retentionDays);
}
