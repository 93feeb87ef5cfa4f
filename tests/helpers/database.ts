import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import type { EventCheckOptions } from "./event-check";
import { timedSetUp } from "./set-up-time";
import { processAlive, TEST_RUN_VARIABLE } from "./test-run";

/** The local PostgreSQL server (trust auth). Tests create a fresh database per run. */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type TestDatabase = { url: string; drop: () => Promise<void> };

/** An empty database (no schema): for the tests of migrating itself. Most tests want `createMigratedDatabase`. */
export function createFreshDatabase(label: string): Promise<TestDatabase> {
  return createDatabase(label, null);
}

/**
 * A database with every migration applied, copied from the run's migrated template
 * (`CREATE DATABASE … TEMPLATE`, a file copy: a fraction of a second, where migrating takes 2–3 s
 * on this machine, more under load). The same schema `migratePostgres` makes: the template is
 * made by it, journal included, so migrating the copy again is a no-op.
 */
export async function createMigratedDatabase(label: string, check: EventCheckOptions = {}): Promise<TestDatabase> {
  return createDatabase(label, await runTemplate(), check);
}

async function createDatabase(label: string, template: string | null, check: EventCheckOptions = {}): Promise<TestDatabase> {
  const name = `billing_${label}_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  if (template) await timedSetUp("database:from-template", () => admin.unsafe(`create database "${name}" template "${template}"`));
  else await timedSetUp("database:create", () => admin.unsafe(`create database "${name}"`));
  const run = deferredDropRun();
  if (run) await admin.unsafe(`comment on database "${name}" is '${runDatabaseMark(run)}'`);
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // A run's event check (tests/helpers/event-check.ts) reads the events before they go; loaded only then.
      if (process.env.EVENT_CHECK_LEDGER) await (await import("./event-check")).checkPostgresEvents(url.toString(), check);
      if (!run) await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/**
 * The run whose end drops a test worker's databases (tests/setup/process-guard.ts), or null: drop
 * at once. Every DROP DATABASE makes PostgreSQL write a checkpoint at once and wait for it (all
 * dirty pages of every database, then a full page image in the WAL for each page written next):
 * dropped one by one, a whole run's databases made 50 checkpoints where the WAL's size asks for a
 * few (docs/testing.md, "Shared set-up"). At the run's end they go together, the
 * checkpoints nearly empty. A run's global set-ups (the main process: the shared app's database)
 * and anything outside a run (Playwright's set-up, scripts) drop at once.
 */
function deferredDropRun(): string | null {
  return process.env.VITEST_WORKER_ID ? (process.env[TEST_RUN_VARIABLE] ?? null) : null;
}

/**
 * The comment that marks a database as a run's, to drop at its end: the run and the process id
 * namespace its main process's id belongs to (another container on the same PostgreSQL has its own).
 */
export function runDatabaseMark(run: string): string {
  return `${RUN_MARK_PREFIX}${run} in ${pidNamespace()}`;
}
const RUN_MARK_PREFIX = "billing test run ";

function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "pid:[unknown]";
  }
}

/**
 * Drops the databases marked as `run`'s, and those of any run of this process id namespace whose
 * main process is gone (its id is `<pid>-<random>`): a run that was killed left its databases for
 * the next to drop.
 */
export async function dropRunDatabases(run?: string): Promise<string[]> {
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const marked = await admin<{ datname: string; mark: string }[]>`
      select datname, shobj_description(oid, 'pg_database') as mark from pg_database
      where shobj_description(oid, 'pg_database') like ${`${RUN_MARK_PREFIX}%`}`;
    const namespace = ` in ${pidNamespace()}`;
    const doomed = marked
      .filter(({ mark }) => {
        if (!mark.endsWith(namespace)) return false;
        const owner = mark.slice(RUN_MARK_PREFIX.length, -namespace.length);
        return owner === run || !processAlive(Number(owner.split("-")[0]));
      })
      .map(({ datname }) => datname);
    for (const name of doomed) await admin.unsafe(`drop database if exists "${name}" with (force)`);
    return doomed;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** `migratePostgres` for a test database, timed for `npm run test:profile`. */
export function migrateTestDatabase(url: string): Promise<void> {
  return timedSetUp("database:migrate", () => migratePostgres(url));
}

/** The run's template's name: one per test run (tests/setup/process-guard.ts marks the run), or per process outside one. */
export function runTemplateName(): string {
  const run = process.env[TEST_RUN_VARIABLE] ?? `${process.pid}`;
  return `billing_template_${run.replace(/[^a-z0-9]/gi, "_")}`.slice(0, 63);
}

/** Any number of worker processes may ask at once: the first makes it under a lock, the others find it. */
const TEMPLATE_LOCK_KEY = 7_243_119_004_512n;

async function runTemplate(): Promise<string> {
  const name = runTemplateName();
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK_KEY.toString()}::bigint)`;
    try {
      const [found] = await admin`select 1 from pg_database where datname = ${name}`;
      if (found) return name;
      // Made under another name and renamed once migrated: a copy never starts from a half-migrated template.
      const building = `${name.slice(0, 54)}_building`;
      await admin.unsafe(`drop database if exists "${building}"`);
      await admin.unsafe(`create database "${building}"`);
      const url = new URL(ADMIN_DATABASE_URL);
      url.pathname = `/${building}`;
      await migrateTestDatabase(url.toString());
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      // Marked a template: copied without its owner's rights, and refused as a connection target by mistake.
      await admin.unsafe(`alter database "${name}" is_template true allow_connections false`);
      return name;
    } finally {
      await admin`select pg_advisory_unlock(${TEMPLATE_LOCK_KEY.toString()}::bigint)`;
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Drops the run's template (at the end of the run: tests/setup/process-guard.ts). */
export async function dropRunTemplate(): Promise<void> {
  const name = runTemplateName();
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database "${name}" is_template false`).catch(() => {});
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}
