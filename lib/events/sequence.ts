import { sql } from "drizzle-orm";
import type { Transaction } from "@/db/client";
import { eventSequences } from "@/db/schema";

/**
 * The next position on an aggregate's timeline (1 for its first event). The upsert takes the
 * counter row's lock until the event's transaction ends, so concurrent emitters of one aggregate
 * queue behind each other and never share a number; a rollback undoes the increment, so
 * committed events count 1, 2, 3… with no gap. A unique index on (account, aggregate, sequence)
 * backs this up.
 */
export async function nextSequence(tx: Transaction, accountId: string, aggregateId: string): Promise<number> {
  const [row] = await tx
    .insert(eventSequences)
    .values({ accountId, aggregateId, lastSequence: 1 })
    .onConflictDoUpdate({
      target: [eventSequences.accountId, eventSequences.aggregateId],
      set: { lastSequence: sql`${eventSequences.lastSequence} + 1` },
    })
    .returning({ sequence: eventSequences.lastSequence });
  return row!.sequence;
}
