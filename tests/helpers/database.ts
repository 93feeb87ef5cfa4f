import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import type { EventCheckOptions } from "./event-check";
import { timedSetUp } from "./set-up-time";

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
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // A run's event check (tests/helpers/event-check.ts) reads the events before they go; loaded only then.
      if (process.env.EVENT_CHECK_LEDGER) await (await import("./event-check")).checkPostgresEvents(url.toString(), check);
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** `migratePostgres` for a test database, timed for `npm run test:profile`. */
export function migrateTestDatabase(url: string): Promise<void> {
  return timedSetUp("database:migrate", () => migratePostgres(url));
}

/** The run's template's name: one per test run (tests/setup/process-guard.ts marks the run), or per process outside one. */
export function runTemplateName(): string {
  const run = process.env.BILLING_TEST_RUN ?? `${process.pid}`;
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
