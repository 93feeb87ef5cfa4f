import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { rowsOf } from "@/lib/rows";

/** Months whose partition this process has made or seen: one DDL per month and process at most. */
const known = new Set<string>();

const monthKey = (date: Date) => `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, "0")}`;

/**
 * Makes the monthly partitions of `usage_events` the given times fall in (and the month after, so
 * the turn of a month never waits on DDL), unless they exist. Partitions are made by the app as
 * events need them rather than by a schedule: a sandbox's test clock may run months ahead.
 */
export async function ensureUsagePartitions(times: Date[]): Promise<void> {
  const months = new Map<string, Date>();
  for (const time of times) {
    for (const offset of [0, 1]) {
      const start = new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth() + offset, 1));
      const key = monthKey(start);
      if (!known.has(key)) months.set(key, start);
    }
  }
  if (months.size === 0) return;
  const db = await getDb();
  for (const [key, start] of months) {
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const name = `usage_events_${key}`;
    // Two processes may race to make the same month: the advisory lock makes the second one find it.
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
      const [exists] = rowsOf<{ one: number }>(await tx.execute(sql`select 1 as one from pg_class where relname = ${name}`));
      if (!exists) {
        await tx.execute(
          sql.raw(
            `create table "${name}" partition of usage_events for values from ('${start.toISOString()}') to ('${end.toISOString()}')`,
          ),
        );
      }
    });
    known.add(key);
  }
}

/**
 * Drops the monthly partitions that ended more than `retentionMonths` before `now` (the retention
 * setting, docs/usage-billing.md): their events' usage stays in the hourly aggregates and on
 * invoices; their identifiers are forgotten with them. Returns the dropped tables.
 */
export async function dropExpiredUsagePartitions(now: Date, retentionMonths: number): Promise<string[]> {
  const db = await getDb();
  const cutoff = monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - retentionMonths, 1)));
  const rows = rowsOf<{ relname: string }>(
    await db.execute(sql`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent where p.relname = 'usage_events' order by c.relname`),
  );
  const dropped: string[] = [];
  for (const { relname } of rows) {
    const key = relname.replace("usage_events_", "");
    if (/^\d{6}$/.test(key) && key < cutoff) {
      const start = new Date(Date.UTC(Number(key.slice(0, 4)), Number(key.slice(4)) - 1, 1));
      const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
      await db.transaction(async (tx) => {
        await tx.execute(sql`delete from usage_event_keys where ts >= ${start.toISOString()}::timestamptz and ts < ${end.toISOString()}::timestamptz`);
        await tx.execute(sql.raw(`drop table "${relname}"`));
      });
      known.delete(key);
      dropped.push(relname);
    }
  }
  return dropped;
}
