import { migrate } from "drizzle-orm/postgres-js/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { MIGRATIONS_FOLDER } from "./client";

/**
 * The advisory lock key every migrator takes (any fixed bigint: "billing-service migrations").
 * Drizzle's migrator reads the last applied migration before its transaction, so two deploys
 * racing would both apply the same migration; holding this lock makes the second one wait, then
 * find everything applied and do nothing.
 */
export const MIGRATION_LOCK_KEY = 7_243_119_004_511n;

/**
 * Applies the committed migrations to a PostgreSQL database (`npm run db:migrate`, tests). Needs a
 * direct connection (not a transaction-mode pooler): the lock belongs to the session.
 */
export async function migratePostgres(url: string): Promise<void> {
  // One connection: the lock, the migrations and the unlock share one session.
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}
