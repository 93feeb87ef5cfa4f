import { afterAmbientCommit } from "@/db/ambient";
import { getDb, type Transaction } from "@/db/client";
import { jobs } from "@/lib/jobs";

const deliveriesByTransaction = new WeakMap<Transaction, string[]>();

/**
 * Runs a state change in one transaction. After it commits, the deliveries its events fanned out
 * are handed to the job provider at once; should that hand-off be lost (a crash right after the
 * commit), the delivery rows are still due and the drivers' sweep finds them.
 */
export async function inChangeTransaction<T>(change: (tx: Transaction) => Promise<T>): Promise<T> {
  const db = await getDb();
  const deliveryIds: string[] = [];
  const result = await db.transaction(async (tx) => {
    deliveriesByTransaction.set(tx, deliveryIds);
    return change(tx);
  });
  // Inside a request-wide transaction (an idempotent POST), the rows are visible only once it commits.
  if (deliveryIds.length > 0) await afterAmbientCommit(() => jobs().deliveriesCreated(deliveryIds));
  return result;
}

/** Called by emitEvent: the deliveries to hand off once this transaction commits. */
export function afterCommitDeliver(tx: Transaction, deliveryIds: string[]): void {
  deliveriesByTransaction.get(tx)?.push(...deliveryIds);
}
