import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { config } from "@/lib/config";
import { ambientTransaction } from "./ambient";
import * as schema from "./schema";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Database | Transaction;

export const MIGRATIONS_FOLDER = path.join(/*turbopackIgnore: true*/ process.cwd(), "db", "migrations");

/** See docs/security.md ("Database unavailable"). */
export const DATABASE_TIMEOUTS = { connectSeconds: 5, idleSeconds: 60, statementMs: 30_000, idleInTransactionMs: 30_000 };

type Handle = { kind: "postgres" | "embedded"; db: Database; close: () => Promise<void> };

// Next.js may bundle this module more than once into one process (instrumentation, each route);
// the handle lives on globalThis so that there is one pool, and never two PGlite instances on one
// data directory.
const HANDLE = Symbol.for("billing-service.db");
type GlobalWithHandle = typeof globalThis & { [HANDLE]?: Promise<Handle> };

async function openPostgres(url: string): Promise<Handle> {
  const { poolSize, pooled } = config().database;
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    // A transaction-mode pooler hands each transaction any server connection: a statement
    // prepared on one is unknown on the next (lib/deploy.ts).
    prepare: !pooled,
    // Fail fast when the database is away (the API answers 503, lib/api/unavailable.ts) and
    // recover by itself: seconds to connect, idle connections recycled, no statement or
    // abandoned transaction held for long.
    connect_timeout: DATABASE_TIMEOUTS.connectSeconds,
    idle_timeout: DATABASE_TIMEOUTS.idleSeconds,
    // Startup parameters: a transaction-mode pooler (PgBouncer) refuses unknown ones, so through a
    // pooler the statement limits are the pooler's and the server's (docs/decisions.md).
    ...(pooled
      ? {}
      : {
          connection: {
            statement_timeout: DATABASE_TIMEOUTS.statementMs,
            idle_in_transaction_session_timeout: DATABASE_TIMEOUTS.idleInTransactionMs,
          },
        }),
  });
  const db = drizzlePostgres(client, { schema }) as unknown as Database;
  return { kind: "postgres", db, close: () => client.end({ timeout: 5 }) };
}

/** The embedded database migrates itself on first use; PostgreSQL is migrated by `npm run db:migrate`. */
async function openEmbedded(dataDir: string): Promise<Handle> {
  const dir = path.resolve(/*turbopackIgnore: true*/ process.cwd(), dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  const pglite = drizzlePglite(client, { schema });
  await migratePglite(pglite, { migrationsFolder: MIGRATIONS_FOLDER });
  return { kind: "embedded", db: pglite as unknown as Database, close: () => client.close() };
}

function handle(): Promise<Handle> {
  const store = globalThis as GlobalWithHandle;
  if (!store[HANDLE]) {
    const { databaseUrl, dataDir } = config();
    store[HANDLE] = databaseUrl ? openPostgres(databaseUrl) : openEmbedded(dataDir);
    // A failed open must not be cached forever.
    store[HANDLE].catch(() => {
      delete store[HANDLE];
    });
  }
  return store[HANDLE];
}

export async function getDb(): Promise<Database> {
  // Inside an idempotent request's transaction (db/ambient.ts), its queries join it.
  const ambient = ambientTransaction();
  if (ambient) return ambient as unknown as Database;
  return (await handle()).db;
}

export async function databaseKind(): Promise<Handle["kind"]> {
  return (await handle()).kind;
}

export async function closeDb(): Promise<void> {
  const store = globalThis as GlobalWithHandle;
  const current = store[HANDLE];
  delete store[HANDLE];
  if (current) await (await current).close();
}
