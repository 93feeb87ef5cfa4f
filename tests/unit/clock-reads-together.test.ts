import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresClient, readTogether, type Database, type Executor } from "@/db/client";
import { timeTransitions } from "@/lib/clock/registry";
import { systemContext } from "@/lib/clock/service";
import { createOrganization } from "@/lib/organizations/service";
import { wire } from "@/lib/server/wiring";
import { createMigratedDatabase, type TestDatabase } from "../helpers/database";
import { PgWireCounter } from "../helpers/pg-wire";

/**
 * The test clock asks every kind of time-driven transition what it has due, and when it next falls
 * due, at each stop of an advance (lib/clock/service.ts): eleven kinds, one read or two each. Sent
 * together on one connection (db/client.ts `readTogether`), they cost one round trip and the
 * COMMIT's, whatever the number of kinds; awaited one by one they cost one round trip each (a
 * test-clock renewal spent 277 round trips, 156 after). Counted on the wire through the loopback
 * proxy of tests/helpers/pg-wire.ts, with the app's own client (prepared statements, db/prepared.ts).
 */

let database: TestDatabase;
let counter: PgWireCounter;
let client: postgres.Sql;
let db: Database;
let accountId: string;

beforeAll(async () => {
  wire();
  database = await createMigratedDatabase("clock_reads");
  const viaProxy = new URL(database.url);
  counter = await PgWireCounter.start({ host: viaProxy.hostname, port: Number(viaProxy.port || 5432) });
  viaProxy.port = String(counter.port);
  client = postgresClient(viaProxy.toString(), { max: 2, pooled: false, applicationName: "clock reads test" });
  db = drizzle(client) as unknown as Database;
  ({ sandboxAccountId: accountId } = await createOrganization(db, { name: "Clock reads" }));
}, 120_000);

afterAll(async () => {
  await client?.end({ timeout: 5 });
  await counter?.close();
  await database?.drop();
});

describe("reads sent together (readTogether)", () => {
  it("answers each read's own rows, in the order given, in two round trips for five reads", async () => {
    const reads = [1, 2, 3, 4, 5].map((n) => async (tx: Executor) => {
      const [row] = (await tx.execute(sql`select ${n}::int * 10 as value`)) as unknown as { value: number }[];
      return row!.value;
    });
    expect(await readTogether(db, reads)).toEqual([10, 20, 30, 40, 50]);
    // Awaited one by one on the pool, the same reads are a round trip each.
    const oneByOne = async () => {
      for (const read of reads) await read(db);
    };
    expect(await counter.roundTripsOfRepeat(oneByOne)).toBe(5);
    expect(await counter.roundTripsOfRepeat(() => readTogether(db, reads))).toBe(2);
  });

  it("fails as a whole when one read fails, and the connection serves the next reads", async () => {
    const failing = [async (tx: Executor) => tx.execute(sql`select 1`), async (tx: Executor) => tx.execute(sql`select * from no_such_table`)];
    await expect(readTogether(db, failing)).rejects.toThrow(/no_such_table/);
    expect(await readTogether(db, [async (tx) => ((await tx.execute(sql`select 7 as seven`)) as unknown as { seven: number }[])[0]!.seven])).toEqual([7]);
  });
});

/**
 * The kinds' reads and the COMMIT: postgres.js writes the first KiB of a batch as soon as it has
 * it and the rest on the next turn of the event loop (connection.js `write`), so PostgreSQL may
 * answer the first part before the second is sent, which the proxy counts as one more round trip;
 * awaited one by one they were 13 each.
 */
const BATCH_ROUND_TRIPS = 3;

describe("the clock's reads of every kind of time-driven transition", () => {
  it("finds what every kind has due in at most three round trips, however many kinds there are", async () => {
    const kinds = timeTransitions();
    expect(kinds.length).toBeGreaterThan(10);
    const ctx = systemContext({ id: accountId, livemode: false, clockOffsetMs: 0 });
    const findEveryKind = () => readTogether(db, kinds.map((kind) => (tx) => kind.findDue(tx, ctx)));
    expect(await counter.roundTripsOfRepeat(findEveryKind)).toBeLessThanOrEqual(BATCH_ROUND_TRIPS);
    // Nothing is due in a new account: each kind's run runs nothing.
    for (const run of await findEveryKind()) expect(await run()).toBe(0);
  });

  it("asks every kind when it next falls due in at most three round trips", async () => {
    const nextOfEveryKind = () => readTogether(db, timeTransitions().map((kind) => (tx) => kind.nextDue(tx, accountId)));
    expect(await counter.roundTripsOfRepeat(nextOfEveryKind)).toBeLessThanOrEqual(BATCH_ROUND_TRIPS);
    expect(await nextOfEveryKind()).toEqual(timeTransitions().map(() => null));
  });
});
