import { randomBytes } from "node:crypto";
import postgres from "postgres";

/** The local PostgreSQL server (trust auth). Tests create a fresh database per run. */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function createFreshDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `billing_${label}_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // A run's event check (tests/helpers/event-check.ts) reads the events before they go; loaded only then.
      if (process.env.EVENT_CHECK_LEDGER) await (await import("./event-check")).checkPostgresEvents(url.toString());
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
