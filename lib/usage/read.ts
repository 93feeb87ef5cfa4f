import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { customers, subscriptions } from "@/db/schema";
import { DAY_MS, HOUR_MS } from "@/lib/time";
import type { Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { getMeter } from "@/lib/meters/service";
import type { MeterRow } from "@/lib/meters/serialize";
import { rowsOf } from "@/lib/rows";

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;
const iso = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

type Partial = { sum: number; count: number; max: number | null; lastTs: number | null; lastValue: number | null };

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * A meter's usage of a customer over [start, end): the whole hours from the hourly aggregates, the
 * partial hours at the edges (a period starts at any instant) from the raw events of those hours
 * only. `null` for max/last without events.
 */
export async function aggregateUsage(
  meter: Pick<MeterRow, "id" | "accountId" | "aggregation">,
  customerId: string,
  start: Date,
  end: Date,
  executor?: Executor,
): Promise<number | null> {
  const db = executor ?? (await getDb());
  const from = start.getTime();
  const to = end.getTime();
  if (to <= from) return meter.aggregation === "max" || meter.aggregation === "last" ? null : 0;
  // Whole hours [wholeFrom, wholeTo) from the aggregates; the rest of [from, to) from raw events.
  let wholeFrom = ceilHour(from);
  let wholeTo = floorHour(to);
  if (wholeTo <= wholeFrom) wholeFrom = wholeTo = from;
  const key = sql`account_id = ${meter.accountId} and meter_id = ${meter.id} and customer_id = ${customerId}`;
  const edges = sql`${key} and cancelled_at is null
    and ((ts >= ${iso(from)} and ts < ${iso(wholeFrom)}) or (ts >= ${iso(wholeTo)} and ts < ${iso(to)}))`;
  if (meter.aggregation === "unique_count") {
    const [row] = rowsOf<{ n: string }>(
      await db.execute(sql`select count(*) as n from (
        select value from usage_hourly_unique where ${key} and hour >= ${iso(wholeFrom)} and hour < ${iso(wholeTo)} and events > 0
        union select unique_value from usage_events where ${edges}) as u`),
    );
    return Number(row?.n ?? 0);
  }
  const rows = rowsOf<{ s: string | null; c: string | null; m: string | null; lt: string | null; lv: string | null }>(
    await db.execute(sql`
      (select sum(sum_value) as s, sum(event_count) as c, max(max_value) as m,
        (select (extract(epoch from last_ts) * 1000)::bigint from usage_hourly where ${key} and hour >= ${iso(wholeFrom)} and hour < ${iso(wholeTo)} and last_ts is not null order by last_ts desc limit 1)::text as lt,
        (select last_value from usage_hourly where ${key} and hour >= ${iso(wholeFrom)} and hour < ${iso(wholeTo)} and last_ts is not null order by last_ts desc limit 1) as lv
       from usage_hourly where ${key} and hour >= ${iso(wholeFrom)} and hour < ${iso(wholeTo)})
      union all
      (select sum(value), count(*), max(value),
        (select (extract(epoch from ts) * 1000)::bigint from usage_events where ${edges} order by ts desc, received desc limit 1)::text,
        (select value from usage_events where ${edges} order by ts desc, received desc limit 1)
       from usage_events where ${edges})`),
  );
  const parts: Partial[] = rows.map((r) => ({
    sum: num(r.s) ?? 0,
    count: num(r.c) ?? 0,
    max: num(r.m),
    lastTs: num(r.lt),
    lastValue: num(r.lv),
  }));
  switch (meter.aggregation) {
    case "sum":
      return parts.reduce((total, p) => total + p.sum, 0);
    case "count":
      return parts.reduce((total, p) => total + p.count, 0);
    case "max": {
      const maxima = parts.map((p) => p.max).filter((m): m is number => m !== null);
      return maxima.length === 0 ? null : Math.max(...maxima);
    }
    case "last": {
      // The raw edge part is last in `parts`: at an equal timestamp the later hour's edge wins.
      let best: Partial | null = null;
      for (const p of parts) if (p.lastTs !== null && (best === null || p.lastTs >= (best.lastTs ?? 0))) best = p;
      return best?.lastValue ?? null;
    }
  }
}

/**
 * The period a customer's usage is shown for (and its alerts evaluated in: lib/alerts): its live
 * subscription's current period (the earliest started), else the UTC calendar month of `now`.
 */
export async function openPeriod(accountId: string, customerId: string, now: Date): Promise<{ start: Date; end: Date }> {
  const db = await getDb();
  const [subscription] = await db
    .select({ start: subscriptions.currentPeriodStart, end: subscriptions.currentPeriodEnd })
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.customerId, customerId), ne(subscriptions.status, "cancelled")))
    .orderBy(asc(subscriptions.currentPeriodStart))
    .limit(1);
  if (subscription) return subscription;
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

export async function requireCustomer(accountId: string, customerId: string): Promise<void> {
  const db = await getDb();
  const [row] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.id, customerId), isNull(customers.deletedAt)));
  if (!row) throw notFound("customer", customerId);
}

export async function customerUsage({ ctx, input }: Verb<{ customerId: string; meterId: string }>) {
  const meter = await getMeter({ ctx, input: { id: input.meterId } });
  await requireCustomer(ctx.accountId, input.customerId);
  const period = await openPeriod(ctx.accountId, input.customerId, ctx.now());
  const value = await aggregateUsage(meter, input.customerId, period.start, period.end);
  return { meter, customerId: input.customerId, period, value };
}

const MAX_SUMMARY_MS = 366 * DAY_MS;

/** Buckets of whole hours or UTC days, read from the hourly aggregates only. */
export async function meterSummaries({
  ctx,
  input,
}: Verb<{ meterId: string; customerId: string; start?: Date; end?: Date; groupBy: "hour" | "day" }>) {
  const meter = await getMeter({ ctx, input: { id: input.meterId } });
  await requireCustomer(ctx.accountId, input.customerId);
  const unit = input.groupBy === "hour" ? HOUR_MS : DAY_MS;
  if ((input.start === undefined) !== (input.end === undefined)) {
    const field = input.start === undefined ? "start" : "end";
    throw validationFailed([{ field, message: "Give both start and end, or neither (the latest buckets by the account's clock)." }]);
  }
  // No range: the last 30 days (or 24 hours) ending with the current one on the account's clock
  // (a sandbox's test clock included), what the dashboard's chart shows as "today".
  const to = input.end?.getTime() ?? Math.floor(ctx.now().getTime() / unit) * unit + unit;
  const from = input.start?.getTime() ?? to - (input.groupBy === "hour" ? 24 : 30) * unit;
  const errors = [];
  if (from % unit !== 0) errors.push({ field: "start", message: `Must be a whole ${input.groupBy} (UTC).` });
  if (to % unit !== 0) errors.push({ field: "end", message: `Must be a whole ${input.groupBy} (UTC).` });
  if (to <= from || to - from > MAX_SUMMARY_MS) errors.push({ field: "end", message: "Must be after start, at most 366 days later." });
  if (errors.length > 0) throw validationFailed(errors);
  const db = await getDb();
  const key = sql`account_id = ${meter.accountId} and meter_id = ${meter.id} and customer_id = ${input.customerId}
    and hour >= ${iso(from)} and hour < ${iso(to)}`;
  const bucket = sql.raw(`date_trunc('${input.groupBy}', hour, 'UTC')`);
  const value =
    meter.aggregation === "unique_count"
      ? sql`count(distinct value)`
      : {
          sum: sql`sum(sum_value)`,
          count: sql`sum(event_count)`,
          max: sql`max(max_value)`,
          last: sql`(array_agg(last_value order by last_ts desc))[1]`,
        }[meter.aggregation];
  const table = meter.aggregation === "unique_count" ? sql`usage_hourly_unique` : sql`usage_hourly`;
  const extra = meter.aggregation === "unique_count" ? sql`and events > 0` : meter.aggregation === "last" ? sql`and last_ts is not null` : sql``;
  const rows = rowsOf<{ b: string; v: string | null }>(
    await db.execute(sql`select (extract(epoch from ${bucket}) * 1000)::bigint::text as b, ${value}::text as v from ${table} where ${key} ${extra} group by 1`),
  );
  const byBucket = new Map(rows.map((r) => [Number(r.b), num(r.v)]));
  const empty = meter.aggregation === "max" || meter.aggregation === "last" ? null : 0;
  const items = [];
  for (let at = from; at < to; at += unit) {
    items.push({ start: new Date(at), end: new Date(at + unit), value: byBucket.get(at) ?? empty });
  }
  return { meter, customerId: input.customerId, items };
}
