import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_DATABASE_URL, createFreshDatabase, dropRunDatabases, runDatabaseMark } from "../helpers/database";
import { TEST_RUN_VARIABLE } from "../helpers/test-run";

/**
 * A test worker's database outlives its file: its DROP DATABASE (a checkpoint PostgreSQL writes at
 * once and waits for) waits for the run's end, where tests/setup/process-guard.ts drops the run's
 * databases together, and a later run drops those a killed run left.
 */
describe("the test run's databases", () => {
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  afterAll(() => admin.end({ timeout: 5 }));

  async function markOf(name: string): Promise<string | null | undefined> {
    const [row] = await admin<{ mark: string | null }[]>`select shobj_description(oid, 'pg_database') as mark from pg_database where datname = ${name}`;
    return row?.mark;
  }
  async function makeMarked(run: string): Promise<string> {
    const name = `billing_run_mark_${randomBytes(4).toString("hex")}`;
    await admin.unsafe(`create database "${name}"`);
    await admin.unsafe(`comment on database "${name}" is '${runDatabaseMark(run)}'`);
    return name;
  }

  it("a worker's drop() keeps the database, marked as the run's", async () => {
    const run = process.env[TEST_RUN_VARIABLE];
    expect(run).toMatch(/^\d+-[0-9a-f]+$/);
    const database = await createFreshDatabase("run_mark");
    const name = new URL(database.url).pathname.slice(1);
    await database.drop();
    expect(await markOf(name)).toBe(runDatabaseMark(run!));
  });

  it("drops a run's databases when it ends, and a gone run's at any run's start; a live run's stay", async () => {
    // A run of a process that lives (this one) and a run whose main process exited.
    const living = `${process.pid}-${randomBytes(4).toString("hex")}`;
    const exited = spawnSync(process.execPath, ["-e", ""]).pid!;
    const gone = `${exited}-${randomBytes(4).toString("hex")}`;
    const ofLiving = await makeMarked(living);
    const ofGone = await makeMarked(gone);

    // A run's start: the gone run's database goes, the living run's stays.
    expect(await dropRunDatabases()).toContain(ofGone);
    expect(await markOf(ofGone)).toBeUndefined();
    expect(await markOf(ofLiving)).toBe(runDatabaseMark(living));

    // The living run's end: its database goes.
    expect(await dropRunDatabases(living)).toContain(ofLiving);
    expect(await markOf(ofLiving)).toBeUndefined();
  });

  it("leaves a gone run's database of another process id namespace (another container on the same PostgreSQL)", async () => {
    const exited = spawnSync(process.execPath, ["-e", ""]).pid!;
    const name = await makeMarked(`${exited}-${randomBytes(4).toString("hex")}`);
    const elsewhere = runDatabaseMark(`${exited}-${randomBytes(4).toString("hex")}`).replace(/ in .*$/, " in pid:[1]");
    await admin.unsafe(`comment on database "${name}" is '${elsewhere}'`);
    try {
      expect(await dropRunDatabases()).not.toContain(name);
      expect(await markOf(name)).toBe(elsewhere);
    } finally {
      await admin.unsafe(`drop database if exists "${name}"`);
    }
  });
});
