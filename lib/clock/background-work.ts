/*
 * Work an account's transitions start and do not wait for (a renewal's charge at a network
 * processor, handed to a pool so that the clock goes on to the next renewal). A test clock's
 * advance waits for it at each stop before it looks for the next due instant: in real time such a
 * charge answers in seconds, long before anything it schedules (its reconciliation 15 minutes on,
 * dunning's retry days on) falls due, and an advance must bring about what real time would
 * (docs/rules/time.md, "Time-driven transitions"). Kept on globalThis: Next.js may bundle this
 * module more than once into one process.
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

/**
 * How long an advance waits at one stop. A charge is bounded by its processor's timeout and
 * retries, but a processor that is down would hold an advance of many renewals for each of them:
 * past this the advance moves on, and what is still out is healed as in real time (a charge still
 * in flight is reconciled when that falls due).
 */
export const BACKGROUND_WAIT_MS = 60_000;

/**
 * Resolves once no work of the account is pending, including work started while it waited, or
 * after `withinMs` (true when it all settled).
 */
export async function backgroundWorkSettled(accountId: string, withinMs: number = BACKGROUND_WAIT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), withinMs).unref()));
  try {
    for (let works = pending().get(accountId); works && works.size > 0; works = pending().get(accountId)) {
      if ((await Promise.race([Promise.allSettled([...works]), late])) === "late") return false;
    }
    return true;
  } finally {
    clearTimeout(timer);
  }
}
