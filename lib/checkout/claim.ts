import { eq } from "drizzle-orm";
import { databaseKind } from "@/db/client";
import { isLockNotAvailable } from "@/db/errors";
import { checkoutSessions } from "@/db/schema";
import { retryableConflict } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";

const busy = (id: string) =>
  retryableConflict({
    errorCode: "checkout_session_busy",
    title: "Checkout Session Busy",
    detail: `Checkout session '${id}' is being paid by another request; nothing was changed. Retry in a few seconds.`,
    fields: { checkout_session_id: id },
  });

/**
 * Per-session queues within this process: the embedded database has one connection, so no row
 * lock can be held across other transactions. On globalThis because Next.js may bundle this module
 * more than once into one process (each route), and every copy must share the same queues.
 */
const QUEUES = Symbol.for("billing-service.checkout-claims");
const queues: Map<string, Promise<unknown>> = ((globalThis as typeof globalThis & { [QUEUES]?: Map<string, Promise<unknown>> })[QUEUES] ??=
  new Map());

async function inProcessQueue<T>(id: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(id) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(id, settled);
  try {
    return await run;
  } finally {
    if (queues.get(id) === settled) queues.delete(id);
  }
}

/** Runs one change in the claim's transaction (PostgreSQL) or in a transaction of its own (embedded). */
export type InClaim = <T>(change: (tx: ChangeTransaction) => Promise<T>) => Promise<T>;

/**
 * Completing a session takes several committed steps (a customer, a subscription and its invoice,
 * a payment), so two completions of one session must never interleave: that would charge twice.
 *
 * On PostgreSQL the session row is locked (NOWAIT: a concurrent completion gets a retryable 409)
 * in a transaction held open for the whole completion; the steps commit on other connections and
 * the final change of the session runs in the claim's transaction. Merchant changes and the
 * expiry clock lock the row too, so they wait (or skip it) meanwhile. The embedded database
 * (PGlite) has a single connection, so an open transaction would block every other step: there
 * the claim is an in-process queue per session (one process is the only writer of the embedded
 * database), and each change opens its own transaction.
 *
 * `wait`: the claim waits for a completion in flight instead of answering busy. Processor's word
 * arriving twice (the webhook's job and the return URL of a paid subscription checkout) takes it so
 * the second waits for the first and then finds the session complete; both are called outside any
 * transaction of theirs, so the wait holds nothing another step needs.
 */
export async function withSessionClaim<T>(id: string, work: (inClaim: InClaim) => Promise<T>, options: { wait?: boolean } = {}): Promise<T> {
  return inProcessQueue(id, async () => {
    if ((await databaseKind()) !== "postgres") return work((change) => withChangeTransaction(change));
    return withChangeTransaction(async (claimTx) => {
      try {
        const row = claimTx.select({ id: checkoutSessions.id }).from(checkoutSessions).where(eq(checkoutSessions.id, id));
        await (options.wait ? row.for("update") : row.for("update", { noWait: true }));
      } catch (error) {
        if (isLockNotAvailable(error)) throw busy(id);
        throw error;
      }
      return work((change) => change(claimTx));
    });
  });
}

/** The merchant's changes and the clock queue behind a completion in this process (embedded); on PostgreSQL their row lock waits for it. */
export function serializedWithCompletion<T>(id: string, work: () => Promise<T>): Promise<T> {
  return inProcessQueue(id, work);
}
