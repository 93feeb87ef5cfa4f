import { and, asc, eq, exists, lte, min, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { getDb, type Executor } from "@/db/client";
import { accounts } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import type { TimeTransition } from "./transitions";
import { log } from "@/lib/log";

/*
 * Helpers the time-transition kinds share (lib/clock/transitions.ts). Each kind's due condition is
 * a predicate on its entity's columns against an instant; the sweep evaluates it against each
 * account's own clock (real time plus accounts.clock_offset_ms), the runners against ctx.now().
 */

/** How many due items one runDue call takes; the runner loops until none is left. */
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
 * Runs one item after another, counting those that changed something. A conflict (the item is
 * held by a merchant's operation: `invoice_locked`) skips the item: it stays due and the next run
 * takes it. Anything else is a bug or an outage and propagates, with the items before it committed.
 */
export async function runEach(ids: readonly string[], runOne: (id: string) => Promise<boolean>): Promise<number> {
  let ran = 0;
  for (const id of ids) {
    try {
      if (await runOne(id)) ran++;
    } catch (error) {
      if (error instanceof ServiceError && error.category === "conflict") {
        log().warn({ id, reason: error.message }, "time-driven transition skipped for now");
        continue;
      }
      throw error;
    }
  }
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
  run: (ctx: ServiceContext, id: string) => Promise<boolean>;
}): TimeTransition {
  const { table, id, accountId, dueAt, pending } = spec;
  return {
    name: spec.name,
    async nextDue(executor, account) {
      const [row] = await executor
        .select({ at: min(dueAt).mapWith((value: string | Date) => new Date(value)) })
        .from(table)
        .where(and(eq(accountId, account), pending));
      return row?.at ?? null;
    },
    async runDue(ctx) {
      const db = await getDb();
      const due = await db
        .select({ id: sql<string>`${id}` })
        .from(table)
        .where(and(eq(accountId, ctx.accountId), pending, lte(dueAt, ctx.now())))
        .orderBy(asc(dueAt), asc(id))
        .limit(DUE_BATCH);
      return runEach(
        due.map((row) => row.id),
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
