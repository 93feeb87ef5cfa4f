import { ambientTransaction } from "@/db/ambient";
import { config } from "@/lib/config";
import { log, safeError } from "@/lib/log";
import { withChangeTransaction, type ChangeTransaction } from "./transaction";

/*
 * Group commit of small state changes (docs/ARCHITECTURE.md, "Group commit of changes"). Concurrent
 * changes of one lane (an account's customer creations) in this process share one transaction: one
 * BEGIN and one COMMIT (one WAL flush) for the group, and their statements pipelined on its
 * connection, as PostgreSQL shares one WAL flush among the commits that wait for it. A group starts
 * at once while fewer than WRITERS groups of its lane are being written; what arrives meanwhile goes
 * next, together, up to `CHANGE_GROUP_COMMIT_MAX` changes. An idle service adds no latency.
 *
 * Each caller gets its own change's result only after the commit that holds it, so an answer is as
 * durable as before and a crash before the commit acknowledges nothing. A group that fails (one
 * change refused, a conflict, the database) is rolled back whole and each change runs again alone
 * in its own transaction, so one change's failure fails no neighbour. A change inside an idempotent
 * request's transaction (db/ambient.ts) is never grouped: it commits with that request.
 *
 * Only changes that are safe to group come here (docs/ARCHITECTURE.md lists them): each independent of
 * its neighbours (no two touch one row), and with no work that must wait for its own commit before
 * it answers beyond what withChangeTransaction does after the group's.
 */

type Change<T> = (tx: ChangeTransaction) => Promise<T>;
type Waiting = { change: Change<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };
type Lane = { queue: Waiting[]; writers: number };
/**
 * Groups of one lane written at once, so that the app prepares the next groups while the database
 * runs the last (one group at a time left the app idle while its one backend worked: fewer
 * creations a second than no grouping at all; 4 measured best, docs/performance.md).
 */
const WRITERS = 4;

const LANES = Symbol.for("billing-service.change-group-commit");
/** Per lane, on globalThis: Next.js may bundle this module more than once into one process. */
const lanes: Map<string, Lane> = ((globalThis as typeof globalThis & { [LANES]?: Map<string, Lane> })[LANES] ??= new Map());

/** Runs `change` in a change transaction, shared with the lane's concurrent changes unless group commit is off. */
export function groupedChange<T>(lane: string, change: Change<T>): Promise<T> {
  if (config().changeGroupCommit.maxChanges <= 1 || ambientTransaction()) return withChangeTransaction(change);
  return new Promise<T>((resolve, reject) => {
    let existing = lanes.get(lane);
    if (!existing) lanes.set(lane, (existing = { queue: [], writers: 0 }));
    existing.queue.push({ change: change as Change<unknown>, resolve: resolve as (value: unknown) => void, reject });
    if (existing.writers < WRITERS) void drain(lane, existing);
    // It waits for a writer of its lane to take it into the next group (tests/api/customer-group-commit.test.ts reads this).
    else log().debug({ waiting: existing.queue.length }, "change queued for its lane's next group");
  });
}

async function drain(key: string, lane: Lane): Promise<void> {
  lane.writers++;
  try {
    while (lane.queue.length > 0) {
      const group = lane.queue.splice(0, config().changeGroupCommit.maxChanges);
      await write(group);
    }
  } finally {
    lane.writers--;
    if (lane.writers === 0 && lane.queue.length === 0) lanes.delete(key);
  }
}

async function write(group: Waiting[]): Promise<void> {
  if (group.length === 1) return alone(group[0]!);
  let results: unknown[];
  try {
    results = await withChangeTransaction(async (tx) => {
      // Side by side on the one connection (postgres.js pipelines them); every change settles
      // before the transaction ends, so none still runs when it commits or rolls back.
      const outcomes = await Promise.allSettled(group.map((waiting) => waiting.change(tx)));
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
      return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
    });
  } catch (error) {
    // Nothing of the group committed: each change again, alone, with its own outcome.
    log().debug({ changes: group.length, err: safeError(error) }, "change group rolled back; its changes run one by one");
    await Promise.all(group.map(alone));
    return;
  }
  log().debug({ changes: group.length }, "change group committed");
  group.forEach((waiting, index) => waiting.resolve(results[index]));
}

async function alone(waiting: Waiting): Promise<void> {
  try {
    waiting.resolve(await withChangeTransaction(waiting.change));
  } catch (error) {
    waiting.reject(error);
  }
}
