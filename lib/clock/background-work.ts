/*
 * Work an account's transitions start and do not wait for (a renewal's charge at a network
 * processor, handed to a pool so that the clock goes on to the next renewal). A test clock's
 * advance waits for it at each stop before it looks for the next due instant: in real time such a
 * charge answers in seconds, long before anything it schedules (its reconciliation 15 minutes on,
 * dunning's retry days on) falls due, and an advance must bring about what real time would
 * (docs/rules/time.md, "Time-driven transitions"). Kept on globalThis: Next.js may bundle this module more
 * than once into one process.
 */

const PENDING = Symbol.for("billing.clock.background-work");
type GlobalWithPending = typeof globalThis & { [PENDING]?: Map<string, Set<Promise<unknown>>> };

function pending(): Map<string, Set<Promise<unknown>>> {
  const store = globalThis as GlobalWithPending;
  return (store[PENDING] ??= new Map());
}

/** Counts `work` as the account's until it settles (its outcome stays the caller's to handle). */
export function trackBackgroundWork(accountId: string, work: Promise<unknown>): void {
  const all = pending();
  let works = all.get(accountId);
  if (!works) all.set(accountId, (works = new Set()));
  works.add(work);
  const done = () => {
    works.delete(work);
    if (works.size === 0 && all.get(accountId) === works) all.delete(accountId);
  };
  work.then(done, done);
}

/** Resolves once no work of the account is pending, including work started while it waited. */
export async function backgroundWorkSettled(accountId: string): Promise<void> {
  for (let works = pending().get(accountId); works && works.size > 0; works = pending().get(accountId)) {
    await Promise.allSettled([...works]);
  }
}
