import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { openPgliteClient } from "@/db/pglite";
import type { SQL } from "drizzle-orm";
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { config } from "@/lib/config";
import { log, safeError } from "@/lib/log";
import { ambientTransaction } from "./ambient";
import { endExportReader, exportReader } from "./export-reader";
import { discardTemplate, restoreTemplate } from "./embedded-template";
import { guardBegin } from "./begin-guard";
import { prepareStatements } from "./prepared";
import { boundQueueWait } from "./queue-bound";
import { SocketWatchdog } from "./watchdog";
// No schema is handed to drizzle(): nothing uses its relational `db.query` API, and with a schema
// every transaction (and savepoint) builds a query builder for each of the schema's tables, 1.5 %
// of a billing property worker's CPU (docs/performance.md).
export type Database = PgDatabase<PgQueryResultHKT>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Database | Transaction;

/**
 * Independent reads sent together: on one connection (a transaction, or a savepoint of the one
 * already open), postgres.js writes statements issued at once in one go and PostgreSQL answers them
 * in order, so N prepared reads cost one round trip and the COMMIT a second, where N reads each
 * awaited in turn cost N (and on the pool, one connection each). Each read sees the data committed
 * when it runs, as it would alone.
 */
export async function readTogether<T>(executor: Executor, reads: readonly ((tx: Executor) => Promise<T>)[]): Promise<T[]> {
  return executor.transaction((tx) => Promise.all(reads.map((read) => read(tx))));
}

export const MIGRATIONS_FOLDER = path.join(/*turbopackIgnore: true*/ process.cwd(), "db", "migrations");

/** Each pool's application_name, seen in pg_stat_activity: an operator (or a test) tells the service's connections apart. */
export const POOL_NAMES = { api: "billing-service api", webhooks: "billing-service webhooks", exports: "billing-service exports" } as const;

/** See docs/security.md ("No database"). Every wait on the database is bounded by one of these. */
export const DATABASE_TIMEOUTS = {
  /** Unless DATABASE_URL sets `connect_timeout` (lib/deploy.ts, `connectSeconds`). */
  connectSeconds: 5,
  idleSeconds: 60,
  statementMs: 30_000,
  idleInTransactionMs: 30_000,
  /** A query still waiting for a pooled connection after this gives up (503). */
  queueMs: 5_000,
  /** A socket silent this long while a query waits makes db/watchdog.ts probe the database. */
  suspectMs: 2_000,
  probeMs: 2_000,
  /** Silent longer than any statement may run: that socket is dead, whatever the probe says. */
  hardMs: 35_000,
};

type Handle = { kind: "postgres" | "embedded"; db: Database; close: () => Promise<void>; client?: postgres.Sql };

// Next.js may bundle this module more than once into one process (instrumentation, each route);
// the handle lives on globalThis so that there is one pool, and never two PGlite instances on one
// data directory.
const HANDLE = Symbol.for("billing-service.db");
type GlobalWithHandle = typeof globalThis & { [HANDLE]?: Promise<Handle> };

const WATCHDOGS = Symbol.for("billing-service.db.watchdogs");
type GlobalWithWatchdogs = typeof globalThis & { [WATCHDOGS]?: Map<string, SocketWatchdog> };

/**
 * One watchdog per database the process talks to, shared by its pools (the API's and the delivery
 * driver's, whose claims and LISTEN read all the time): every socket that reads is evidence that a
 * slow statement's server is busy rather than gone (db/watchdog.ts). On globalThis, as the handle.
 */
function watchdogFor(url: string, pooled: boolean, connectSeconds: number): SocketWatchdog {
  const watchdogs = ((globalThis as GlobalWithWatchdogs)[WATCHDOGS] ??= new Map());
  const key = `${pooled ? "pooled" : "direct"} ${url}`;
  let watchdog = watchdogs.get(key);
  if (!watchdog) {
    const t = DATABASE_TIMEOUTS;
    const settings = { connectMs: connectSeconds * 1000, suspectMs: t.suspectMs, probeMs: t.probeMs, hardMs: t.hardMs };
    watchdog = new SocketWatchdog(url, settings, !pooled);
    watchdogs.set(key, watchdog);
  }
  return watchdog;
}

/**
 * A postgres.js pool with every wait bounded (docs/security.md, "No database"): the API's
 * pool, and the webhook driver's (lib/webhooks/pool.ts), which adds its own startup parameters.
 */
export function postgresClient(
  url: string,
  options: {
    max: number;
    pooled: boolean;
    applicationName: string;
    idleSeconds?: number;
    connectSeconds?: number;
    connection?: Record<string, string>;
  },
): postgres.Sql {
  const { max, pooled, applicationName } = options;
  const connectSeconds = options.connectSeconds ?? DATABASE_TIMEOUTS.connectSeconds;
  // The watchdog's socket and postgres.js's startup exchange: both halves of an opening.
  const watchdog = watchdogFor(url, pooled, connectSeconds);
  const client = postgres(url, {
    max,
    onnotice: () => {},
    // A transaction-mode pooler hands each transaction any server connection: a statement
    // prepared on one is unknown on the next (lib/deploy.ts).
    prepare: !pooled,
    // Fail fast when the database is away (the API answers 503, lib/api/unavailable.ts) and
    // recover by itself: seconds to connect, idle connections recycled, no statement or
    // abandoned transaction held for long.
    connect_timeout: connectSeconds,
    idle_timeout: options.idleSeconds ?? DATABASE_TIMEOUTS.idleSeconds,
    max_lifetime: 30 * 60,
    keep_alive: 30,
    // Reconnect within a second once the database is back (the default backs off up to 20 s).
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    // Sockets made and watched by db/watchdog.ts: a silent one is cut instead of waited on forever.
    // It negotiates the URL's TLS itself, so postgres.js must not.
    ...({ socket: (connecting: ConnectingOptions) => (fetchTypesOnce(connecting), watchdog.socket(connecting)) } as object),
    ssl: false,
    // Startup parameters: a transaction-mode pooler (PgBouncer) refuses unknown ones, so through a
    // pooler the statement limits are the pooler's and the server's (docs/rules/operations.md).
    // application_name, which PgBouncer passes on, names the pool in pg_stat_activity.
    ...(pooled
      ? { connection: { application_name: applicationName } }
      : {
          connection: {
            application_name: applicationName,
            statement_timeout: DATABASE_TIMEOUTS.statementMs,
            idle_in_transaction_session_timeout: DATABASE_TIMEOUTS.idleInTransactionMs,
            // Statements are prepared (db/prepared.ts) and PostgreSQL's plan cache decides when
            // a plan made once serves every run ("auto", whatever the server's default); the
            // reads whose plan depends on how an account's rows are spread run unprepared, so
            // they are planned for each run's parameters (`plannedPerRun`).
            plan_cache_mode: "auto",
            ...options.connection,
          },
        }),
  });
  if (!pooled) prepareStatements(client);
  boundQueueWait(client, DATABASE_TIMEOUTS.queueMs);
  guardBegin(client);
  return client;
}

/** The parts of postgres.js 3.4's parsed options, shared by a pool's connections, that `fetchTypesOnce` reads. */
type ConnectingOptions = Parameters<SocketWatchdog["socket"]>[0] & {
  fetch_types?: boolean;
  shared?: { typeArrayMap?: Record<string, number> };
};

/**
 * postgres.js 3.4.9 fetches the array types on every new connection and drops that query's promise
 * (connection.js, `return fetchArrayTypes()`): a reset during it (a database restart, a network
 * cut while the pool reconnects) is an unhandled rejection. The types live in the options the
 * pool's connections share, so once one connection has them, the connections opened after it skip
 * the fetch. Only the pool's very first connections still fetch.
 */
function fetchTypesOnce(options: ConnectingOptions): void {
  if (Object.keys(options.shared?.typeArrayMap ?? {}).length > 0) options.fetch_types = false;
}

async function openPostgres(url: string): Promise<Handle> {
  const { poolSize, pooled, idleSeconds, connectSeconds } = config().database;
  const client = postgresClient(url, { max: poolSize, pooled, applicationName: POOL_NAMES.api, idleSeconds, connectSeconds });
  const db = drizzlePostgres(client) as unknown as Database;
  return { kind: "postgres", db, close: () => client.end({ timeout: 5 }), client };
}

/**
 * The embedded database migrates itself on first use; PostgreSQL is migrated by `npm run db:migrate`.
 * An empty data directory starts from the install's migrated template when there is one
 * (db/embedded-template.ts); a template that does not open is discarded and initdb runs instead.
 */
async function openEmbedded(dataDir: string): Promise<Handle> {
  const dir = path.resolve(/*turbopackIgnore: true*/ process.cwd(), dataDir, "pglite");
  mkdirSync(path.dirname(dir), { recursive: true });
  if (restoreTemplate(dir, MIGRATIONS_FOLDER)) {
    try {
      return await openPglite(dir);
    } catch (error) {
      log().warn({ err: safeError(error) }, "The embedded database template did not open; discarded, running initdb instead");
      discardTemplate(MIGRATIONS_FOLDER);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  mkdirSync(dir, { recursive: true });
  return openPglite(dir);
}

async function openPglite(dir: string): Promise<Handle> {
  const client = await openPgliteClient(dir);
  try {
    const pglite = drizzlePglite(client);
    await migratePglite(pglite, { migrationsFolder: MIGRATIONS_FOLDER });
    return { kind: "embedded", db: pglite as unknown as Database, close: () => client.close() };
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
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
  await endExportReader();
  if (current) await (await current).close();
}

const dialect = new PgDialect();

/**
 * The first row of `query`, each column as the bytes the database sent (null for NULL), for text
 * the app only passes on (an export's batch, megabytes): no JS string is made of it, and none
 * made into bytes again. Each column is a buffer of its own, held by nothing else (an export
 * releases it once written). PostgreSQL: read by the export reader's thread (db/export-reader.ts),
 * so the bytes never were the server thread's socket reads (docs/performance.md, "Exports");
 * embedded (or inside an ambient transaction): the row's values as text, encoded.
 */
export async function firstRowBytes(query: SQL): Promise<(Buffer | null)[] | undefined> {
  const current = await handle();
  if (current.client && !ambientTransaction()) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    const { databaseUrl, database } = config();
    const t = DATABASE_TIMEOUTS;
    const reader = exportReader({
      url: databaseUrl!,
      pooled: database.pooled,
      applicationName: POOL_NAMES.exports,
      connectSeconds: database.connectSeconds ?? t.connectSeconds,
      idleSeconds: database.idleSeconds ?? t.idleSeconds,
      connection: database.pooled ? {} : { statement_timeout: t.statementMs, idle_in_transaction_session_timeout: t.idleInTransactionMs },
      batchWaitMs: t.hardMs,
    });
    const row = await reader.firstRow(text, params);
    return row?.map((column) => (column === null ? null : Buffer.from(column.buffer)));
  }
  const result: unknown = await (await getDb()).execute(query);
  const [row] = (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows) as Record<string, unknown>[];
  // TextEncoder's bytes are a buffer of their own (Buffer.from(text) may slice a shared pool).
  return row && Object.values(row).map((value) => (value === null || value === undefined ? null : Buffer.from(new TextEncoder().encode(String(value)).buffer)));
}
