import { AsyncLocalStorage } from "node:async_hooks";
import { and, asc, eq, exists, lte, min, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Executor } from "@/db/client";
import { accounts } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import type { TimeTransition } from "./transitions";
import { log } from "@/lib/log";
import { config } from "@/lib/config";
import { ambientTransaction } from "@/db/ambient";
import { isDeadlock } from "@/db/errors";

/*
 * Helpers the time-transition kinds share (lib/clock/transitions.ts). Each kind's due condition is
 * a predicate on its entity's columns against an instant; the sweep evaluates it against each
 * account's own clock (real time plus accounts.clock_offset_ms), the runners against ctx.now().
 */

/** How many due items of a kind one round of the clock takes (`findDue`); the clock goes round until none is left. */
export const DUE_BATCH = 100;

/** The instant "real now on the row's account's clock" in SQL (the row's account joined as `accounts`). */
export function accountNow(realNow: Date): SQL {
  return sql`(${realNow.toISOString()}::timestamptz + ${accounts.clockOffsetMs} * interval '1 millisecond')`;
}

/** Accounts for which `dueRows` (a select correlated on `accounts.id`) finds something. */
export async function accountsWhere(executor: Executor, dueRows: SQLWrapper): Promise<string[]> {
  const rows = await executor.select({ id: accounts.id }).from(accounts).where(exists(dueRows));
  return rows.map((row) => row.id);
}

/**
 * How many due items of one kind one account runs side by side (on PostgreSQL; the embedded
 * PGlite has one connection and runs them one at a time). Items run in *lanes*: the items of one
 * lane (a customer, for the subscription and dunning kinds: whatever shares its balance, credits,
 * discount and entitlements) one after another, in the order they were found; different lanes at
 * once, up to this many. Never more than the pool leaves to requests (`DATABASE_POOL_SIZE` less
 * `CONNECTIONS_LEFT_TO_REQUESTS`). docs/rules/time.md, "Time-driven transitions".
 */
export const TRANSITION_CONCURRENCY = 8;
/** Connections of the pool the clock leaves to requests and to the charges' outcomes while it runs items side by side. */
export const CONNECTIONS_LEFT_TO_REQUESTS = 2;

/**
 * The lanes that may run at once here: 1 on the embedded database (one connection), and inside a
 * request-wide transaction (an advance sent with an Idempotency-Key: every item is a savepoint of
 * that one connection's transaction, db/ambient.ts).
 */
export function transitionConcurrency(): number {
  const { url, poolSize } = config().database;
  if (!url || ambientTransaction()) return 1;
  return Math.max(1, Math.min(TRANSITION_CONCURRENCY, poolSize - CONNECTIONS_LEFT_TO_REQUESTS));
}

// One storage per process even when Next.js bundles this module more than once (db/ambient.ts).
const HELD_ROWS = Symbol.for("billing-service.clock.held-rows");
const heldRows: AsyncLocalStorage<"wait"> = ((globalThis as typeof globalThis & { [HELD_ROWS]?: AsyncLocalStorage<"wait"> })[HELD_ROWS] ??=
  new AsyncLocalStorage<"wait">());

/**
 * How a time-driven transition locks its due row. Normally `skip locked`: a row another
 * transaction holds (a merchant's operation, another runner) is left alone, stays due and is taken
 * by the next run, so a sweep never queues behind a request. Inside `waitingForHeldRows` (the test
 * clock's last try at an instant where everything due was skipped) it waits for the holder to
 * finish instead, then re-checks the row as always: that tells a row that was only held from one
 * that stays due after running (lib/clock/service.ts).
 */
export function dueRowLock(): { skipLocked: true } | { skipLocked?: undefined } {
  return heldRows.getStore() === "wait" ? {} : { skipLocked: true };
}

/** Runs `work` with the due rows' locks waiting for their holders (`dueRowLock`). */
export function waitingForHeldRows<T>(work: () => Promise<T>): Promise<T> {
  return heldRows.run("wait", work);
}

/** A due item and its lane (items of one lane never run at once); a bare id runs in the account's one lane. */
export type DueItem = string | { id: string; lane: string };

const SERIAL_LANE = "";

/** A lock wait the database broke (40P01): like `invoice_locked`, contention, not a bug; the item stays due. */
function isContention(error: unknown): boolean {
  if (error instanceof ServiceError) return error.category === "conflict";
  return isDeadlock(error);
}

/**
 * Runs the items, counting those that changed something: each lane's items one after another,
 * up to `transitionConcurrency()` lanes at once. A conflict (the item is held by a merchant's
 * operation: `invoice_locked`; a deadlock the database broke) skips the item: it stays due and the
 * next run takes it. Anything else is a bug or an outage: no further item starts, those already
 * running finish (committed or rolled back), and the first such error propagates.
 */
export async function runEach(
  items: readonly DueItem[],
  runOne: (id: string) => Promise<boolean>,
  concurrency: number = transitionConcurrency(),
): Promise<number> {
  const lanes = new Map<string, string[]>();
  for (const item of items) {
    const { id, lane } = typeof item === "string" ? { id: item, lane: SERIAL_LANE } : item;
    const queue = lanes.get(lane);
    if (queue) queue.push(id);
    else lanes.set(lane, [id]);
  }
  const waiting = [...lanes.values()];
  let ran = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    for (let queue = waiting.shift(); queue && !failure; queue = waiting.shift()) {
      for (const id of queue) {
        if (failure) return;
        try {
          if (await runOne(id)) ran++;
        } catch (error) {
          if (isContention(error)) {
            log().warn({ id, reason: error instanceof Error ? error.message : String(error) }, "time-driven transition skipped for now");
            continue;
          }
          failure ??= { error };
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, waiting.length) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  return ran;
}

/**
 * A transition whose rows fall due at a timestamp column: rows matching `pending` are due once
 * `dueAt` ≤ the account's time, and `run(ctx, id)` changes one of them (re-checking it under its
 * lock, returning false when it no longer qualifies). Gives the three queries every kind needs.
 */
export function columnTransition(spec: {
  name: string;
  table: PgTable;
  id: PgColumn;
  accountId: PgColumn;
  dueAt: PgColumn;
  pending: SQL | undefined;
  /** The column whose rows' items may not run at once (a customer); without it the kind runs one item at a time. */
  lane?: PgColumn;
  run: (ctx: ServiceContext, id: string) => Promise<boolean>;
}): TimeTransition {
  const { table, id, accountId, dueAt, pending, lane } = spec;
  return {
    name: spec.name,
    async nextDue(executor, account) {
      const [row] = await executor
        .select({ at: min(dueAt).mapWith((value: string | Date) => new Date(value)) })
        .from(table)
        .where(and(eq(accountId, account), pending));
      return row?.at ?? null;
    },
    async findDue(executor, ctx) {
      const due = await executor
        .select({ id: sql<string>`${id}`, lane: lane ? sql<string | null>`${lane}` : sql<null>`null` })
        .from(table)
        .where(and(eq(accountId, ctx.accountId), pending, lte(dueAt, ctx.now())))
        .orderBy(asc(dueAt), asc(id))
        .limit(DUE_BATCH);
      return () =>
        runEach(
          due.map((row) => (row.lane === null ? row.id : { id: row.id, lane: row.lane })),
          (rowId) => spec.run(ctx, rowId),
        );
    },
    async dueAccounts(executor, realNow) {
      return accountsWhere(
        executor,
        executor.select({ id: sql`1` }).from(table).where(and(eq(accountId, accounts.id), pending, lte(dueAt, accountNow(realNow)))),
      );
    },
  };
}
