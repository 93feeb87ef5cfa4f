import { afterAmbientCommit, ambientTransaction } from "@/db/ambient";
import { getDb, type Transaction } from "@/db/client";
import { jobs } from "@/lib/jobs";
import { log, safeError } from "@/lib/log";

declare const changeTransactionBrand: unique symbol;

/**
 * The transaction of a state change. Only withChangeTransaction makes one (the brand cannot be
 * written elsewhere), and emitEvent requires one, so an event emitted inside a plain
 * `db.transaction` is a type error rather than a hand-off silently lost until the next poll.
 */
export type ChangeTransaction = Transaction & {
  readonly [changeTransactionBrand]: true;
  /** Deliveries to hand to the job provider once this transaction commits (emitEvent calls it). */
  deliverAfterCommit(deliveryIds: readonly string[]): void;
  /** Emails were queued (lib/email-outbox/enqueue.ts): wake the sender once this transaction commits. */
  emailsAfterCommit(): void;
  /**
   * Work that must not run inside our transaction (a call to a network payment processor,
   * docs/payments.md): it runs once the outermost change commits (after the request's, for an
   * idempotent POST), in order. Outside a request-wide transaction its failure is the caller's
   * error; inside one the answer is already decided, so a failure is logged and left to be healed
   * (the work records what it needs before it is queued).
   */
  afterCommit(work: () => Promise<void>): void;
};

/**
 * Runs a state change in one transaction, or in `within` when the caller already has one open (a
 * verb composed into a larger change: its deliveries then leave with the outer commit). After the
 * commit, the deliveries its events fanned out are handed to the job provider at once; should that
 * hand-off be lost (a crash right after the commit), the delivery rows are still due and the
 * drivers' sweep finds them.
 */
export async function withChangeTransaction<T>(change: (tx: ChangeTransaction) => Promise<T>, within?: ChangeTransaction): Promise<T> {
  if (within) return change(within);
  const db = await getDb();
  const deliveryIds: string[] = [];
  let emailsQueued = false;
  const afterCommit: Array<() => Promise<void>> = [];
  const result = await db.transaction((tx) =>
    // The hand-off lives on the transaction object itself: drizzle makes a fresh one per transaction.
    change(
      Object.assign(tx, {
        deliverAfterCommit: (ids: readonly string[]) => void deliveryIds.push(...ids),
        emailsAfterCommit: () => void (emailsQueued = true),
        afterCommit: (work: () => Promise<void>) => void afterCommit.push(work),
      }) as ChangeTransaction,
    ),
  );
  // Inside a request-wide transaction (an idempotent POST), the rows are visible only once it commits.
  if (deliveryIds.length > 0) await afterAmbientCommit(() => jobs().deliveriesCreated(deliveryIds));
  if (emailsQueued) await afterAmbientCommit(() => jobs().emailsQueued());
  if (afterCommit.length > 0) {
    if (ambientTransaction()) {
      await afterAmbientCommit(async () => {
        for (const work of afterCommit) await work().catch((error: unknown) => log().warn({ err: safeError(error) }, "work after commit failed; left to be healed"));
      });
    } else {
      for (const work of afterCommit) await work();
    }
  }
  return result;
}

/**
 * For verbs that may run inside a caller's change (a subscription renewing makes, finalizes and
 * collects its invoice in the transaction that advances its period): pass `tx` on to
 * withChangeTransaction, so the caller's change and the verb's commit together.
 */
export type WithinChange = { tx?: ChangeTransaction };
