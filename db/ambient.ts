import { AsyncLocalStorage } from "node:async_hooks";
import type { Database, Transaction } from "./client";

/**
 * A transaction that spans a whole request (an idempotent POST: lib/idempotency/request.ts).
 * While it is open, getDb() answers it, so every read and change of the request runs in it and
 * nested transactions become savepoints; what must wait for the commit (handing deliveries to
 * the job provider) is queued here and runs after it, outside the scope.
 */
type Scope = { tx: Transaction; open: boolean; afterCommit: Array<() => Promise<void>> };

// One storage per process even when Next.js bundles this module more than once.
const STORAGE = Symbol.for("billing-service.db.ambient");
const storage: AsyncLocalStorage<Scope> = ((globalThis as typeof globalThis & { [STORAGE]?: AsyncLocalStorage<Scope> })[STORAGE] ??=
  new AsyncLocalStorage<Scope>());

/** The request's open transaction, if any (timers started inside the scope see it closed). */
export function ambientTransaction(): Transaction | undefined {
  const scope = storage.getStore();
  return scope?.open ? scope.tx : undefined;
}

/** Runs `work` after the request's transaction commits, or now when there is none. */
export async function afterAmbientCommit(work: () => Promise<void>): Promise<void> {
  const scope = storage.getStore();
  if (scope?.open) scope.afterCommit.push(work);
  else await work();
}

/** What the request's transaction does (commit or roll back), then what the request answers or throws. */
export type AmbientOutcome<T> = { commit: boolean } & ({ value: T } | { error: unknown });

/**
 * Runs `work` in one transaction that the rest of the request joins; `work` decides whether it
 * commits and what follows. Work queued with afterAmbientCommit runs after a commit only.
 */
export async function inAmbientTransaction<T>(db: Database, work: () => Promise<AmbientOutcome<T>>): Promise<T> {
  const afterCommit: Array<() => Promise<void>> = [];
  let outcome: AmbientOutcome<T> | undefined;
  try {
    await db.transaction(async (tx) => {
      const scope: Scope = { tx, open: true, afterCommit };
      try {
        outcome = await storage.run(scope, work);
      } finally {
        scope.open = false;
      }
      if (!outcome.commit) throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  if (outcome!.commit) {
    // Outside the scope: the hand-offs open their own connections and transactions.
    await storage.exit(async () => {
      for (const next of afterCommit) await next();
    });
  }
  if ("error" in outcome!) throw outcome.error;
  return outcome!.value;
}

const ROLLBACK = Symbol("rollback");
