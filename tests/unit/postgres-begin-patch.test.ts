import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresClient } from "@/db/client";
import { createFreshDatabase, type TestDatabase } from "../helpers/database";
import { PgWireCounter } from "../helpers/pg-wire";

/**
 * postgres.js's `begin()` writes a plain BEGIN and the transaction's first statement together
 * instead of waiting for BEGIN's answer in between, and a savepoint (drizzle's nested transaction)
 * with the statements behind it: patches/postgres+3.4.9.patch, docs/ARCHITECTURE.md "Patched
 * dependencies". Seen on the wire through the loopback proxy that counts round trips (a client
 * send after the server has answered: tests/helpers/pg-wire.ts), and what a transaction promises
 * checked around it: its statements run inside it, a failure rolls all of them back (a
 * savepoint's, only its own), the pool's other queries never ride on its connection, and a
 * connection that dies under it fails it alone.
 */

let database: TestDatabase;
let counter: PgWireCounter;
let client: postgres.Sql;

beforeAll(async () => {
  database = await createFreshDatabase("begin_patch");
  const viaProxy = new URL(database.url);
  counter = await PgWireCounter.start({ host: viaProxy.hostname, port: Number(viaProxy.port || 5432) });
  viaProxy.port = String(counter.port);
  // The app's own client (db/client.ts): its watched sockets, its prepared statements.
  client = postgresClient(viaProxy.toString(), { max: 2, pooled: false, applicationName: "begin-patch test" });
  await client`create table ledger (id int primary key, source text not null)`;
});

afterAll(async () => {
  await client?.end({ timeout: 5 });
  await counter?.close();
  await database?.drop();
});

describe("postgres.js's begin() and savepoint(), patched to pipeline a plain BEGIN and a SAVEPOINT", () => {
  it("is applied to both of postgres.js's builds", () => {
    const require = createRequire(import.meta.url);
    const commonJs = require.resolve("postgres");
    const esm = commonJs.replace(/cjs\/src\/index\.js$/, "src/index.js");
    for (const file of [commonJs, esm]) {
      const source = readFileSync(file, "utf8");
      expect(source, file).toContain("connection.queue === full && move(connection, reserved)");
      expect(source, file).toContain("name && sql`savepoint ${ sql(name) }`.execute()");
    }
  });

  it("sends a transaction's first statement with its BEGIN, and a savepoint's with its SAVEPOINT: a round trip less each", async () => {
    const db = drizzle(client);
    const twoStatements = () =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 2`);
      });
    expect(await counter.roundTripsOfRepeat(twoStatements)).toBe(3);
    // A BEGIN with options could be refused (an isolation level), so it is still awaited.
    const withOptions = () =>
      client.begin("isolation level repeatable read", async (tx) => {
        await tx`select 1`;
        await tx`select 2`;
      });
    expect(await counter.roundTripsOfRepeat(withOptions)).toBe(4);
    // A nested transaction's SAVEPOINT goes with its first statement too (lib/invoices/core.ts locks an invoice so).
    const nested = () =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.transaction((savepoint) => savepoint.execute(sql`select 2`));
      });
    expect(await counter.roundTripsOfRepeat(nested)).toBe(3);
  });

  it("rolls back only a failed savepoint's statements, and the transaction around it goes on", async () => {
    const db = drizzle(client);
    await db.transaction(async (tx) => {
      await tx.execute(sql`insert into ledger values (10, 'kept')`);
      const refused = tx.transaction(async (savepoint) => {
        await savepoint.execute(sql`insert into ledger values (11, 'rolled back')`);
        await savepoint.execute(sql`select 1 / 0`);
      });
      // drizzle wraps the driver's error: PostgreSQL's division_by_zero is its cause.
      await expect(refused).rejects.toMatchObject({ cause: { code: "22012" } });
      await tx.execute(sql`insert into ledger values (12, 'kept')`);
    });
    expect(await client`select id, source from ledger order by id`).toEqual([
      { id: 10, source: "kept" },
      { id: 12, source: "kept" },
    ]);
    await client`delete from ledger`;
  });

  it("runs every statement inside the transaction, and rolls all of them back when it fails", async () => {
    const [first, second] = await client.begin(async (tx) => {
      const [a] = await tx<{ xact: string }[]>`select pg_current_xact_id()::text as xact`;
      const [b] = await tx<{ xact: string }[]>`select pg_current_xact_id()::text as xact`;
      return [a!.xact, b!.xact];
    });
    expect(first).toBe(second);

    const failed = client.begin(async (tx) => {
      await tx`insert into ledger values (1, 'rolled back')`;
      await tx`insert into ledger values (2, 'rolled back')`;
      throw new Error("the change is refused");
    });
    await expect(failed).rejects.toThrow("the change is refused");
    // A failing first statement: the one written with BEGIN.
    await expect(client.begin((tx) => tx`insert into ledger values (3, null)`)).rejects.toThrow(/null value/);
    expect(await client`select count(*)::int as n from ledger`).toEqual([{ n: 0 }]);
  });

  it("keeps the pool's other queries off a transaction's connection", async () => {
    // 40 transactions that insert then fail, among 40 single inserts on the same 2 connections: a
    // single insert written onto a transaction's connection would be rolled back with it.
    const work = Array.from({ length: 40 }, (_, index) => [
      client
        .begin(async (tx) => {
          await tx`insert into ledger values (${1000 + index}, 'transaction')`;
          throw new Error("rolled back");
        })
        .catch(() => null),
      client`insert into ledger values (${2000 + index}, 'single')`,
    ]).flat();
    await Promise.all(work);
    expect(await client`select source, count(*)::int as n from ledger group by source`).toEqual([{ source: "single", n: 40 }]);
  });

  it("fails a transaction whose connection dies under it, and the pool goes on", async () => {
    const killed = client.begin(async (tx) => {
      await tx`select pg_terminate_backend(pg_backend_pid())`;
      await tx`insert into ledger values (3000, 'never')`;
    });
    await expect(killed).rejects.toThrow();
    expect(await client`select count(*)::int as n from ledger where id = 3000`).toEqual([{ n: 0 }]);
  });
});
