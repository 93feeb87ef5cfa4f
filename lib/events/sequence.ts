import { sql, type SQL } from "drizzle-orm";
import type { Transaction } from "@/db/client";
import { eventSequences } from "@/db/schema";
import { one, rowsOf } from "@/lib/rows";

/**
 * The upsert that takes the next position on an aggregate's timeline, returning it as
 * `last_sequence` (emitEvent runs it as one part of its single statement). The upsert takes the
 * counter row's lock until the event's transaction ends, so concurrent emitters of one aggregate
 * queue behind each other and never share a number; a rollback undoes the increment, so
 * committed events count 1, 2, 3… with no gap. A unique index on (account, aggregate, sequence)
 * backs this up.
 */
export function sequenceUpsert(accountId: string, aggregateId: string): SQL {
  return sql`insert into ${eventSequences} (account_id, aggregate_id, last_sequence) values (${accountId}, ${aggregateId}, 1)
    on conflict (account_id, aggregate_id) do update set last_sequence = ${eventSequences}.last_sequence + 1
    returning last_sequence`;
}

/** The next position on an aggregate's timeline (1 for its first event); see sequenceUpsert. */
export async function nextSequence(tx: Transaction, accountId: string, aggregateId: string): Promise<number> {
  const row = one(rowsOf<{ last_sequence: number }>(await tx.execute(sequenceUpsert(accountId, aggregateId))));
  return Number(row.last_sequence);
}
