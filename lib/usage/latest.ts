import { and, desc, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { usageEvents } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { getMeter } from "@/lib/meters/service";
import { requireCustomer } from "./read";

/**
 * A customer's latest usage events of one meter, newest first, cancelled ones included (marked).
 * Per customer so that the read walks the (account, meter, customer, ts) index backwards.
 */
export async function latestUsageEvents({ ctx, input }: Verb<{ meterId: string; customerId: string; limit: number }>) {
  const meter = await getMeter({ ctx, input: { id: input.meterId } });
  await requireCustomer(ctx.accountId, input.customerId);
  const db = await getDb();
  const rows = await db
    .select()
    .from(usageEvents)
    .where(and(eq(usageEvents.accountId, ctx.accountId), eq(usageEvents.meterId, meter.id), eq(usageEvents.customerId, input.customerId)))
    .orderBy(desc(usageEvents.ts), desc(usageEvents.received))
    .limit(input.limit);
  return rows;
}
