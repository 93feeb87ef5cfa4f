import { and, eq, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { meters, usageEventKeys, usageEvents } from "@/db/schema";
import { HOUR_MS } from "@/lib/time";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { one } from "@/lib/rows";
import { lockedUsagePeriod } from "./invoiced";

/**
 * Removes an accepted event from usage: marks it cancelled and recomputes its hour's aggregates
 * from that hour's raw events, under the lock of the hour's aggregate row (a concurrent ingestion
 * into the same hour either committed before, and is recounted, or adds after). Cancelling twice
 * answers the same. Once the invoice of the event's period is finalized: 409 (`usage_event_locked`).
 * Not an entity change of the catalogue: no event is emitted (docs/rules/usage.md, "No domain events for usage events").
 */
export async function cancelUsageEvent({ ctx, input }: Verb<{ identifier: string }>) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [key] = await tx
      .select()
      .from(usageEventKeys)
      .where(and(eq(usageEventKeys.accountId, ctx.accountId), eq(usageEventKeys.identifier, input.identifier)));
    if (!key) throw notFound("usage event", input.identifier);
    const where = and(eq(usageEvents.ts, key.ts), eq(usageEvents.accountId, ctx.accountId), eq(usageEvents.identifier, input.identifier));
    const event = one(await tx.select().from(usageEvents).where(where).for("update"), "usage event");
    const [meter] = await tx.select({ eventName: meters.eventName }).from(meters).where(eq(meters.id, event.meterId));
    const view = (cancelled: Date) => ({ event, eventName: meter?.eventName ?? "", cancelled });
    if (event.cancelledAt !== null) return view(event.cancelledAt);
    const now = ctx.now();
    await lockedUsagePeriod(tx, ctx.accountId, event.customerId, event.ts, input.identifier, now);
    await tx.update(usageEvents).set({ cancelledAt: now }).where(where);
    const hour = new Date(Math.floor(event.ts.getTime() / HOUR_MS) * HOUR_MS).toISOString();
    const next = new Date(Math.floor(event.ts.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS).toISOString();
    const key4 = sql`account_id = ${ctx.accountId} and meter_id = ${event.meterId} and customer_id = ${event.customerId}`;
    await tx.execute(sql`select 1 from usage_hourly where ${key4} and hour = ${hour}::timestamptz for update`);
    const raw = sql`from usage_events where ${key4} and cancelled_at is null
      and ts >= ${hour}::timestamptz and ts < ${next}::timestamptz`;
    await tx.execute(sql`update usage_hourly set
        sum_value = coalesce(r.s, 0), event_count = r.c, max_value = r.m, last_ts = r.lt, last_value = r.lv
      from (select sum(value) as s, count(*) as c, max(value) as m,
        (select ts ${raw} order by ts desc, received desc limit 1) as lt,
        (select value ${raw} order by ts desc, received desc limit 1) as lv ${raw}) as r
      where ${key4} and hour = ${hour}::timestamptz`);
    if (event.uniqueValue !== null) {
      await tx.execute(sql`update usage_hourly_unique set events = events - 1
        where ${key4} and hour = ${hour}::timestamptz and value = ${event.uniqueValue}`);
    }
    return view(now);
  });
}
