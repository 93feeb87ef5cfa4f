import { sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { DAY_MS, HOUR_MS, realNow } from "@/lib/time";
import { config } from "@/lib/config";
import { log, safeError } from "@/lib/log";
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
 * The earliest instant whose raw events may still be ingested, cancelled or invoiced: the start of
 * the oldest open period of a live subscription (ingestion's window, lib/usage/ingest.ts, and the
 * period a metered item's invoice will bill) less its account's grace window. Null without a live
 * subscription. Partitions are shared by all accounts, so this is the minimum over all of them.
 */
async function oldestOpenInstant(executor: Executor): Promise<Date | null> {
  const [row] = rowsOf<{ at: string | null }>(
    await executor.execute(sql`select min(s.current_period_start - a.usage_grace_seconds * interval '1 second')::text as at
      from subscriptions s join accounts a on a.id = s.account_id where s.status <> 'cancelled'`),
  );
  return row?.at ? new Date(row.at) : null;
}

/**
 * Drops the monthly partitions of `usage_events` (with their identifiers in `usage_event_keys`)
 * that ended more than `retentionDays` before `now` and before any open period still to be
 * invoiced (oldestOpenInstant). `retentionDays` 0 keeps everything. The hourly aggregates are
 * not touched: summaries and whole-hour usage of dropped months stay readable (docs/usage-billing.md,
 * "Retention"). Returns the dropped tables.
 */
export async function dropExpiredUsagePartitions(now: Date, retentionDays: number): Promise<string[]> {
  if (retentionDays <= 0) return [];
  const db = await getDb();
  const open = await oldestOpenInstant(db);
  const retained = now.getTime() - retentionDays * DAY_MS;
  const cutoff = open === null ? retained : Math.min(retained, open.getTime());
  const rows = rowsOf<{ relname: string }>(
    await db.execute(sql`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent where p.relname = 'usage_events' order by c.relname`),
  );
  const dropped: string[] = [];
  for (const { relname } of rows) {
    const key = relname.replace("usage_events_", "");
    if (!/^\d{6}$/.test(key)) continue;
    const start = new Date(Date.UTC(Number(key.slice(0, 4)), Number(key.slice(4)) - 1, 1));
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    if (end.getTime() > cutoff) continue;
    await db.transaction(async (tx) => {
      // Dropping a partition locks the parent: wait briefly behind ingestion, else retry next hour.
      await tx.execute(sql`set local lock_timeout = '5s'`);
      await tx.execute(sql`delete from usage_event_keys where ts >= ${start.toISOString()}::timestamptz and ts < ${end.toISOString()}::timestamptz`);
      await tx.execute(sql.raw(`drop table "${relname}"`));
    });
    known.delete(key);
    dropped.push(relname);
  }
  return dropped;
}

const MAINTENANCE = Symbol.for("billing-service.usage-partition-maintenance");
type GlobalWithMaintenance = typeof globalThis & { [MAINTENANCE]?: { at: number; running: boolean } };

/**
 * At most once an hour per process, off the caller's path: this month's and the next month's
 * partitions (real time), then the expired ones dropped (`USAGE_EVENT_RETENTION_DAYS`). Ingestion
 * calls it, as the request log's writer maintains its partitions where it writes: whatever runs the
 * app (embedded, Inngest, serverless), the processes that receive usage keep its partitions.
 */
export function maintainUsagePartitions(): void {
  const store = globalThis as GlobalWithMaintenance;
  const state = (store[MAINTENANCE] ??= { at: 0, running: false });
  const now = realNow();
  if (state.running || now.getTime() - state.at < HOUR_MS) return;
  state.running = true;
  state.at = now.getTime();
  void ensureUsagePartitions([now])
    .then(() => dropExpiredUsagePartitions(now, config().usageEventRetentionDays))
    .then((dropped) => {
      if (dropped.length > 0) log().info({ partitions: dropped }, "usage events: expired partitions dropped");
    })
    .catch((error) => log().warn({ err: safeError(error) }, "usage events: partition maintenance failed; retried in an hour"))
    .finally(() => {
      state.running = false;
    });
}
