import { eq, inArray, type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Executor, postgresClient } from "@/db/client";
import { PLANNED_ONCE_MARK, plannedPerRun, prepareStatements } from "@/db/prepared";
import { recordAttempts } from "@/lib/webhooks/record";
import type { SendResult } from "@/lib/webhooks/send";
import { createFreshDatabase, type TestDatabase } from "../helpers/database";

/*
 * db/prepared.ts: drizzle's statements prepared once per connection (PostgreSQL's own view of the
 * session, pg_prepared_statements, is the witness), in transactions and savepoints too, at most a
 * pool's limit of texts, and never through a transaction-mode pooler.
 */

const notes = pgTable("notes", { id: integer("id").primaryKey(), body: text("body").notNull() });

let database: TestDatabase;

beforeAll(async () => {
  database = await createFreshDatabase("prepared");
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  await admin.unsafe("create table notes (id integer primary key, body text not null); insert into notes select g, 'note ' || g from generate_series(1, 10) g");
  await admin.end();
});

afterAll(async () => {
  await database?.drop();
});

/** A one-connection pool (so every query meets the same session's statements) and its drizzle. */
function pool(pooled: boolean) {
  const client = postgresClient(database.url, { max: 1, pooled, applicationName: "prepared-statements test" });
  return { client, db: drizzle(client) };
}

/** The texts this session has prepared (the query runs unprepared itself: `simple`, no parameters). */
async function preparedTexts(client: postgres.Sql): Promise<string[]> {
  const rows = await client.unsafe<{ statement: string }[]>("select statement from pg_prepared_statements order by prepare_time");
  return rows.map((row) => row.statement);
}

describe("statements prepared once per connection (db/prepared.ts)", () => {
  it("prepares a drizzle query on its first run and reuses it: one statement for three runs, with the right rows each time", async () => {
    const { client, db } = pool(false);
    try {
      for (const id of [1, 2, 3]) expect(await db.select().from(notes).where(eq(notes.id, id))).toEqual([{ id, body: `note ${id}` }]);
      const texts = await preparedTexts(client);
      expect(texts.filter((text) => text.includes('from "notes"'))).toHaveLength(1);
      // PostgreSQL's plan cache decides, whatever the server's default (db/client.ts).
      expect((await client.unsafe<{ plan_cache_mode: string }[]>("show plan_cache_mode"))[0]!.plan_cache_mode).toBe("auto");
    } finally {
      await client.end();
    }
  });

  it("prepares inside a transaction and a savepoint (each has a `sql` of its own), and a rolled-back savepoint leaves the rest whole", async () => {
    const { client, db } = pool(false);
    try {
      await db.transaction(async (tx) => {
        await tx.update(notes).set({ body: "changed" }).where(eq(notes.id, 4));
        await tx
          .transaction(async (inner) => {
            // A text of its own (`in`, not `=`), so that the savepoint's statement is counted apart.
            await inner.update(notes).set({ body: "inner" }).where(inArray(notes.id, [5]));
            throw new Error("roll the savepoint back");
          })
          .catch(() => undefined);
      });
      const texts = await preparedTexts(client);
      expect(texts.filter((text) => text.startsWith('update "notes"')).sort()).toEqual([
        'update "notes" set "body" = $1 where "notes"."id" = $2',
        'update "notes" set "body" = $1 where "notes"."id" in ($2)',
      ]);
      expect(await db.select().from(notes).where(inArray(notes.id, [4, 5])).orderBy(notes.id)).toEqual([
        { id: 4, body: "changed" },
        { id: 5, body: "note 5" },
      ]);
    } finally {
      await client.end();
    }
  });

  it("plans a prepared write once for all its runs, and sends a read of the events, deliveries or usage tables unprepared, planned for each run's values", async () => {
    const { client, db } = pool(false);
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe("create table if not exists events (id integer primary key, account_id text not null)");
      await admin.unsafe("insert into events select g, case when g <= 9000 then 'acc_big' else 'acc_' || g end from generate_series(1, 10000) g on conflict do nothing");
      await admin.unsafe("create index if not exists events_account_idx on events (account_id)");
      await admin.unsafe("analyze events");
      const events = pgTable("events", { id: integer("id").primaryKey(), accountId: text("account_id").notNull() });
      for (let run = 0; run < 8; run++) await db.update(notes).set({ body: `run ${run}` }).where(eq(notes.id, 9));
      for (const account of ["acc_9001", "acc_9002", "acc_9003", "acc_9004", "acc_9005", "acc_9006", "acc_big"]) {
        const rows = await db.select({ id: events.id }).from(events).where(eq(events.accountId, account));
        expect(rows).toHaveLength(account === "acc_big" ? 9000 : 1);
      }
      const statements = await client.unsafe<{ statement: string; generic_plans: string; custom_plans: string }[]>(
        "select statement, generic_plans, custom_plans from pg_prepared_statements",
      );
      // The write: planned for its first five runs, then the cached plan for the other three.
      const update = statements.find((row) => row.statement.startsWith('update "notes"'));
      expect(update).toMatchObject({ custom_plans: "5", generic_plans: "3" });
      // The read of the skewed table was never prepared: PostgreSQL parses an unnamed statement on
      // each run and plans it for the values bound to it, so each account got a plan of its own.
      expect(statements.filter((row) => row.statement.includes('from "events"'))).toEqual([]);
      // A read of it by primary key only carries the mark, and is prepared like any other.
      for (const id of [1, 9500]) {
        expect(await db.execute(sql`${sql.raw(PLANNED_ONCE_MARK)} select account_id from events where id = ${id}`)).toEqual([
          { account_id: id === 1 ? "acc_big" : "acc_9500" },
        ]);
      }
      const marked = await preparedTexts(client);
      expect(marked.filter((text) => text.startsWith(PLANNED_ONCE_MARK))).toEqual([`${PLANNED_ONCE_MARK} select account_id from events where id = $1`]);
    } finally {
      await admin.unsafe("drop table if exists events");
      await admin.end();
      await client.end();
    }
  });

  it("prepares the webhook attempt records: they read the deliveries by id only, so their one text carries the mark", async () => {
    const statements: string[] = [];
    const dialect = new PgDialect();
    const capture = { execute: async (query: SQL) => void statements.push(dialect.sqlToQuery(query).sql) } as unknown as Executor;
    const sent: SendResult = { status: 200, error: null, excerpt: "ok", durationMs: 3, blocked: false };
    await recordAttempts(capture, [
      { deliveryId: "del_1", accountId: "acc_1", attempt: 1, url: "https://127.0.0.1:1/hook", trigger: "scheduled", sent, outcome: { result: "delivered", attempt: 1, status: 200 }, at: new Date() },
    ]);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/join event_deliveries/);
    expect(plannedPerRun(statements[0]!)).toBe(false);
    // What the mark exempts stays narrow: the same text without it is planned per run.
    expect(plannedPerRun(statements[0]!.replace(PLANNED_ONCE_MARK, ""))).toBe(true);
  });

  it("prepares at most the pool's limit of distinct texts; the texts past it run unprepared, with the right answers", async () => {
    const client = postgres(database.url, { max: 1, onnotice: () => {} });
    prepareStatements(client, 2);
    const db = drizzle(client);
    try {
      // A list's length changes the text: four lengths, four texts.
      for (const ids of [[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]) {
        expect((await db.select({ id: notes.id }).from(notes).where(inArray(notes.id, ids)).orderBy(notes.id)).map((row) => row.id)).toEqual(ids);
      }
      // Those prepared stay prepared: the first text again adds nothing.
      await db.select({ id: notes.id }).from(notes).where(inArray(notes.id, [7]));
      expect((await preparedTexts(client)).filter((text) => text.includes('from "notes"'))).toHaveLength(2);
    } finally {
      await client.end();
    }
  });

  it("prepares nothing through a transaction-mode pooler (`pooled`), where the next transaction may meet another server connection", async () => {
    const { client, db } = pool(true);
    try {
      await db.select().from(notes).where(eq(notes.id, 1));
      await db.transaction(async (tx) => tx.execute(sql`select ${1}::int as one`));
      expect(await preparedTexts(client)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
