import { createHash } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { usageEventKeys } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { markCustomersSql } from "@/lib/alert-marks/mark";
import { rowsOf } from "@/lib/rows";
import { ensureUsagePartitions, maintainUsagePartitions } from "./partitions";
import { UsageEventInput, type UsageEventBody, type UsageEventErrorCode, type UsageEventResultObject } from "./schema";
import { usageGraceSql } from "./settings";

/** How far ahead of the account's clock a timestamp may be. */
export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

type MeterInfo = { id: string; aggregation: "sum" | "count" | "max" | "last" | "unique_count"; valueKey: string };

/** An event that passed every check, ready for the insert. */
type Valid = {
  index: number;
  identifier: string;
  hash: string;
  meterId: string;
  customerId: string;
  ts: Date;
  value: number;
  uniqueValue: string | null;
  payload: string;
};

const invalid = (identifier: string | null, code: UsageEventErrorCode, message: string): UsageEventResultObject => ({
  identifier,
  status: "invalid",
  error: { code, message },
});

/**
 * The body's fingerprint: a retry of the same event (same fields, any key order) has the same one;
 * a missing `timestamp` stays missing, so a retry is a duplicate even though "now" moved.
 */
function bodyHash(body: UsageEventBody): string {
  const payload = Object.fromEntries(Object.entries(body.payload).sort(([a], [b]) => (a < b ? -1 : 1)));
  const canonical = JSON.stringify([body.event_name, body.customer, body.timestamp ?? null, payload]);
  return createHash("sha256").update(canonical).digest("base64url");
}

/** The meter's value of an event: a non-negative safe integer (a number or a string of digits). */
function valueOf(meter: MeterInfo, payload: UsageEventBody["payload"]): { value: number; unique: string | null } | string {
  if (meter.aggregation === "count") return { value: 1, unique: null };
  const raw = payload[meter.valueKey];
  if (meter.aggregation === "unique_count") {
    if (typeof raw === "string" && raw !== "") return { value: 1, unique: raw };
    if (typeof raw === "number" && Number.isFinite(raw)) return { value: 1, unique: String(raw) };
    return `payload.${meter.valueKey} must be a non-empty string or a number (the counted key of this meter).`;
  }
  const value = typeof raw === "string" && /^\d{1,15}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return `payload.${meter.valueKey} must be an integer ≥ 0 (this meter's value_key).`;
  }
  return { value, unique: null };
}

/**
 * The account's active meters by event name, its live customers, each one's oldest open period
 * start and the account's usage grace: one statement (a one-event request makes one round trip
 * before its insert).
 */
async function lookups(accountId: string, bodies: UsageEventBody[]) {
  const db = await getDb();
  const names = JSON.stringify([...new Set(bodies.map((b) => b.event_name))]);
  const customerIds = JSON.stringify([...new Set(bodies.map((b) => b.customer))]);
  const [row] = rowsOf<{ meters: MeterInfo[] | null; customers: string[] | null; periods: { c: string; s: string }[] | null; grace: number }>(
    await db.execute(sql`select
      (select json_agg(json_build_object('id', id, 'eventName', event_name, 'aggregation', aggregation, 'valueKey', value_key))
        from meters where account_id = ${accountId} and active
        and event_name in (select jsonb_array_elements_text(${names}::jsonb))) as meters,
      (select json_agg(id) from customers where account_id = ${accountId} and deleted_at is null
        and id in (select jsonb_array_elements_text(${customerIds}::jsonb))) as customers,
      (select json_agg(json_build_object('c', customer_id, 's', (extract(epoch from s) * 1000)::bigint)) from (
        select customer_id, min(current_period_start) as s from subscriptions
        where account_id = ${accountId} and status <> 'cancelled'
          and customer_id in (select jsonb_array_elements_text(${customerIds}::jsonb))
        group by customer_id) as p) as periods,
      ${usageGraceSql(accountId)} as grace`),
  );
  return {
    meterByName: new Map<string, MeterInfo & { eventName: string }>(
      ((row?.meters ?? []) as (MeterInfo & { eventName: string })[]).map((m) => [m.eventName, m]),
    ),
    customerIds: new Set(row?.customers ?? []),
    periodStart: new Map((row?.periods ?? []).map((p) => [p.c, new Date(Number(p.s))])),
    graceMs: Number(row?.grace ?? 3600) * 1000,
  };
}

/** Checks one parsed event against the account's meters, customers and time window. */
function check(
  body: UsageEventBody,
  index: number,
  now: Date,
  context: Awaited<ReturnType<typeof lookups>>,
): Valid | UsageEventResultObject {
  const meter = context.meterByName.get(body.event_name);
  if (!meter) return invalid(body.identifier, "unknown_event_name", `No active meter has event_name '${body.event_name}'.`);
  if (!context.customerIds.has(body.customer)) return invalid(body.identifier, "unknown_customer", `No such customer: '${body.customer}'.`);
  const ts = body.timestamp === undefined ? now : new Date(body.timestamp * 1000);
  if (ts.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    return invalid(body.identifier, "timestamp_in_future", `timestamp is more than 5 minutes after now (${now.toISOString()}).`);
  }
  // The customer's open period (or, without one, now) less the grace window: late events of the
  // period that just ended still count until its invoice is finalized.
  const openStart = context.periodStart.get(body.customer) ?? now;
  const oldest = new Date(openStart.getTime() - context.graceMs);
  if (ts.getTime() < oldest.getTime()) {
    return invalid(
      body.identifier,
      "timestamp_too_old",
      `timestamp is before ${oldest.toISOString()}: the customer's open period start (${openStart.toISOString()}) less the account's usage grace (${context.graceMs / 1000} s).`,
    );
  }
  // Within the grace window but before a period that is already invoiced: the renewal finalized
  // that period's usage lines (it runs `grace` after the period end and moves the open period
  // on), so the event could be billed nowhere. The same condition locks an accepted event's
  // cancel (lockedUsagePeriod), so an event is never accepted already locked.
  if (ts.getTime() < openStart.getTime() && now.getTime() >= openStart.getTime() + context.graceMs) {
    return invalid(
      body.identifier,
      "period_invoiced",
      `timestamp is before ${openStart.toISOString()}, the start of the customer's open period: the usage before it is already invoiced, so this event could no longer be billed.`,
    );
  }
  const value = valueOf(meter, body.payload);
  if (typeof value === "string") return invalid(body.identifier, "invalid_value", value);
  return {
    index,
    identifier: body.identifier,
    hash: bodyHash(body),
    meterId: meter.id,
    customerId: body.customer,
    ts,
    value: value.value,
    uniqueValue: value.unique,
    payload: JSON.stringify(body.payload),
  };
}

/**
 * One statement: the identifiers go into the dedup table (ON CONFLICT DO NOTHING: a concurrent
 * insert of the same identifier waits for the first to commit, then finds it); the events whose
 * identifier was new go into the partitioned table; their hourly aggregates are upserted in key
 * order (no deadlock between batches); the customers are marked for their alerts' evaluator
 * (lib/alert-marks). Returns the identifiers it inserted. It commits before the
 * caller answers: `accepted` is durable.
 */
async function insertEvents(accountId: string, received: Date, rows: Valid[]): Promise<Set<string>> {
  const db = await getDb();
  const input = JSON.stringify(
    rows.map((r) => ({
      i: r.identifier,
      h: r.hash,
      m: r.meterId,
      c: r.customerId,
      t: r.ts.toISOString(),
      v: r.value,
      u: r.uniqueValue,
      p: r.payload,
      o: r.index,
    })),
  );
  const result = await db.execute(sql`
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb)
        as x(i text, h text, m text, c text, t timestamptz, v bigint, u text, p text, o int)
    ), keys as (
      insert into usage_event_keys (account_id, identifier, body_hash, ts, received)
      select ${accountId}, i, h, t, ${received.toISOString()}::timestamptz from input order by i
      on conflict do nothing
      returning identifier
    ), ev as (
      insert into usage_events (account_id, identifier, meter_id, customer_id, ts, value, unique_value, payload, received)
      select ${accountId}, input.i, m, c, t, v, u, p, ${received.toISOString()}::timestamptz
      from input join keys on keys.identifier = input.i
      returning meter_id, customer_id, ts, value, unique_value, identifier
    ), ordered as (
      select ev.*, input.o from ev join input on input.i = ev.identifier
    ), hourly as (
      insert into usage_hourly (account_id, meter_id, customer_id, hour, sum_value, event_count, max_value, last_ts, last_value)
      select ${accountId}, meter_id, customer_id, date_trunc('hour', ts, 'UTC'), sum(value), count(*), max(value), max(ts),
        (array_agg(value order by ts desc, o desc))[1]
      from ordered group by meter_id, customer_id, date_trunc('hour', ts, 'UTC')
      order by meter_id, customer_id, date_trunc('hour', ts, 'UTC')
      on conflict (account_id, meter_id, customer_id, hour) do update set
        sum_value = usage_hourly.sum_value + excluded.sum_value,
        event_count = usage_hourly.event_count + excluded.event_count,
        max_value = greatest(usage_hourly.max_value, excluded.max_value),
        last_value = case when usage_hourly.last_ts is null or excluded.last_ts >= usage_hourly.last_ts
          then excluded.last_value else usage_hourly.last_value end,
        last_ts = greatest(usage_hourly.last_ts, excluded.last_ts)
    ), uniques as (
      insert into usage_hourly_unique (account_id, meter_id, customer_id, hour, value, events)
      select ${accountId}, meter_id, customer_id, date_trunc('hour', ts, 'UTC'), unique_value, count(*)
      from ev where unique_value is not null
      group by meter_id, customer_id, date_trunc('hour', ts, 'UTC'), unique_value
      order by meter_id, customer_id, date_trunc('hour', ts, 'UTC'), unique_value
      on conflict (account_id, meter_id, customer_id, hour, value) do update set events = usage_hourly_unique.events + excluded.events
    ), marks as (
      ${markCustomersSql(accountId, received, sql`select customer_id from ev`)}
    )
    select identifier from keys`);
  return new Set(rowsOf<{ identifier: string }>(result).map((r) => r.identifier));
}

/**
 * Ingests events in order: each gets `accepted`, `duplicate` or `invalid` (with the reason), and an
 * invalid one never rejects the others. Items are raw (a batch's items are checked here, one by
 * one); an identifier already accepted with another body — or sent twice in one batch with two
 * bodies — is `invalid` with `usage_event_conflict`.
 */
export async function ingestUsageEvents(ctx: ServiceContext, items: unknown[]): Promise<UsageEventResultObject[]> {
  const results: (UsageEventResultObject | undefined)[] = new Array(items.length);
  const parsed: { index: number; body: UsageEventBody }[] = [];
  items.forEach((item, index) => {
    const result = UsageEventInput.safeParse(item);
    if (result.success) parsed.push({ index, body: result.data });
    else {
      const raw = (item as { identifier?: unknown } | null)?.identifier;
      const identifier = typeof raw === "string" ? raw : null;
      const issue = result.error.issues[0];
      const message = issue ? `${issue.path.join(".") || "event"}: ${issue.message}` : "Not a usage event.";
      results[index] = invalid(identifier, "invalid_event", message);
    }
  });

  const now = ctx.now();
  const valid: Valid[] = [];
  if (parsed.length > 0) {
    const context = await lookups(ctx.accountId, parsed.map((p) => p.body));
    const firstOf = new Map<string, Valid>();
    for (const { index, body } of parsed) {
      const checked = check(body, index, now, context);
      if (!("meterId" in checked)) {
        results[index] = checked;
        continue;
      }
      // The same identifier twice in one batch: the first counts, the next is its retry or a conflict.
      const first = firstOf.get(checked.identifier);
      if (first) {
        results[index] =
          first.hash === checked.hash
            ? { identifier: checked.identifier, status: "duplicate" }
            : invalid(checked.identifier, "usage_event_conflict", "This batch sent this identifier earlier with another body.");
        continue;
      }
      firstOf.set(checked.identifier, checked);
      valid.push(checked);
    }
  }
  if (valid.length > 0) {
    // Hourly, in the background: next month's partition and the retention setting's drops.
    maintainUsagePartitions();
    await ensureUsagePartitions(valid.map((v) => v.ts));
    const inserted = await insertEvents(ctx.accountId, now, valid);
    const seen = valid.filter((v) => !inserted.has(v.identifier));
    const known = await knownHashes(ctx.accountId, seen.map((v) => v.identifier));
    for (const v of valid) {
      if (inserted.has(v.identifier)) results[v.index] = { identifier: v.identifier, status: "accepted" };
      else if (known.get(v.identifier) === v.hash) results[v.index] = { identifier: v.identifier, status: "duplicate" };
      else {
        results[v.index] = invalid(v.identifier, "usage_event_conflict", "This identifier was already accepted with another body.");
      }
    }
  }
  return results.map((r) => r ?? invalid(null, "invalid_event", "Not a usage event."));
}

async function knownHashes(accountId: string, identifiers: string[]): Promise<Map<string, string>> {
  if (identifiers.length === 0) return new Map();
  const db = await getDb();
  const rows = await db
    .select({ identifier: usageEventKeys.identifier, hash: usageEventKeys.bodyHash })
    .from(usageEventKeys)
    .where(and(eq(usageEventKeys.accountId, accountId), inArray(usageEventKeys.identifier, identifiers)));
  return new Map(rows.map((r) => [r.identifier, r.hash]));
}
