import { and, desc, eq, gte, lt, lte, sql, type SQL } from "drizzle-orm";
import { getDb } from "@/db/client";
import { usageEvents } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { getMeter } from "@/lib/meters/service";
import { requireCustomer } from "./read";

/** Where a usage event stands in the list's order: (timestamp, received, identifier), descending. */
export type UsageEventKey = { ts: Date; received: Date; identifier: string };

type LatestInput = {
  meterId: string;
  customerId: string;
  limit: number;
  /** `timestamp[gte]` / `timestamp[lt]`. */
  from?: Date;
  before?: Date;
  /** Keyset: only the events after this one in the list's order (an export's next batch). */
  after?: UsageEventKey;
};

/**
 * A customer's latest usage events of one meter, newest first (ties by receipt, then identifier:
 * one total order, so an export's keyset batches neither skip nor repeat), cancelled ones included
 * (marked). Per customer so that the read walks the (account, meter, customer, ts) index backwards.
 */
export async function latestUsageEvents({ ctx, input }: Verb<LatestInput>) {
  const meter = await getMeter({ ctx, input: { id: input.meterId } });
  await requireCustomer(ctx.accountId, input.customerId);
  const db = await getDb();
  const conditions: SQL[] = [eq(usageEvents.accountId, ctx.accountId), eq(usageEvents.meterId, meter.id), eq(usageEvents.customerId, input.customerId)];
  if (input.from) conditions.push(gte(usageEvents.ts, input.from));
  if (input.before) conditions.push(lt(usageEvents.ts, input.before));
  if (input.after) {
    const { ts, received, identifier } = input.after;
    // `ts <=` beside the row comparison: the index's bound, and the partitions after it pruned.
    conditions.push(lte(usageEvents.ts, ts));
    conditions.push(sql`(${usageEvents.ts}, ${usageEvents.received}, ${usageEvents.identifier}) < (${ts.toISOString()}::timestamptz, ${received.toISOString()}::timestamptz, ${identifier})`);
  }
  return db
    .select()
    .from(usageEvents)
    .where(and(...conditions))
    .orderBy(desc(usageEvents.ts), desc(usageEvents.received), desc(usageEvents.identifier))
    .limit(input.limit);
}

/** An export's keyset as text (it never leaves the server: the export's query has no cursor). */
export function encodeUsageEventKey(key: UsageEventKey): string {
  return `${key.ts.getTime()}.${key.received.getTime()}.${key.identifier}`;
}

export function decodeUsageEventKey(text: string): UsageEventKey {
  const [ts, received] = text.split(".", 2);
  const identifier = text.slice(`${ts}.${received}.`.length);
  return { ts: new Date(Number(ts)), received: new Date(Number(received)), identifier };
}
