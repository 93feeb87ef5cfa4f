/**
 * What running on a deployment platform changes (docs/deploy.md, "Vercel"): how the
 * server reaches PostgreSQL through a connection pooler, where migrations connect, and what a
 * serverless deployment cannot do without.
 */

export type DatabaseSettings = {
  /** DATABASE_URL, less the `pgbouncer` flag (which PostgreSQL would refuse as a startup parameter). */
  url: string | undefined;
  /**
   * DATABASE_URL goes through a transaction-mode pooler (PgBouncer, Neon's `-pooler` host,
   * Supabase's port 6543): a server connection is ours only for one transaction, so no prepared
   * statements and no session state (SET, session advisory locks, LISTEN) on this URL.
   */
  pooled: boolean;
  /**
   * A connection that keeps its session: DATABASE_URL_UNPOOLED, else DATABASE_URL when it is not
   * pooled. Migrations (a session advisory lock) and anything that LISTENs must use this one.
   */
  directUrl: string | undefined;
  /** postgres.js `max` per process: small on serverless, where every instance has its own pool. */
  poolSize: number;
  /** Seconds a pooled connection may sit idle before it is closed; unset: db/client.ts's default. */
  idleSeconds: number | undefined;
  /** Seconds to open a connection: DATABASE_URL's `connect_timeout`; unset: db/client.ts's default. */
  connectSeconds: number | undefined;
};

type DatabaseEnv = {
  DATABASE_URL?: string;
  DATABASE_URL_UNPOOLED?: string;
  DATABASE_POOLED?: "true" | "false";
  DATABASE_POOL_SIZE?: number;
  DATABASE_IDLE_SECONDS?: number;
};

/** One serverless instance serves a few requests at once; the pooler multiplexes the rest. */
export const SERVERLESS_POOL_SIZE = 3;
export const SERVER_POOL_SIZE = 10;

/** Supabase's transaction-mode pooler port (its session mode is 5432). */
const SUPABASE_TRANSACTION_PORT = "6543";

/** Whether a URL names a transaction-mode pooler by the conventions providers use. */
export function looksPooled(url: URL): boolean {
  if (url.searchParams.get("pgbouncer") === "true") return true;
  // Neon: ep-name-123456-pooler.region.aws.neon.tech
  if (url.hostname.split(".")[0]!.endsWith("-pooler")) return true;
  return url.hostname.endsWith(".pooler.supabase.com") && url.port === SUPABASE_TRANSACTION_PORT;
}

/** libpq's `connect_timeout` in a connection string: the seconds to open a connection (db/client.ts). */
const CONNECT_TIMEOUT_RANGE = { min: 2, max: 60 } as const;

/**
 * A URL's `connect_timeout` in seconds (undefined without one). Refuses one the pools could not
 * honour: not whole seconds, or outside 2–60 (libpq reads 0 as "wait for ever", and no wait of
 * this service is unbounded: docs/security.md).
 */
function connectTimeoutOf(name: string, url: URL): number | undefined {
  const given = url.searchParams.get("connect_timeout");
  if (given === null) return undefined;
  const seconds = /^\d+$/.test(given) ? Number(given) : NaN;
  if (!(seconds >= CONNECT_TIMEOUT_RANGE.min && seconds <= CONNECT_TIMEOUT_RANGE.max)) {
    throw new Error(
      `${name}: connect_timeout must be whole seconds from ${CONNECT_TIMEOUT_RANGE.min} to ${CONNECT_TIMEOUT_RANGE.max} (it was "${given}").`,
    );
  }
  return seconds;
}

export function databaseSettings(env: DatabaseEnv, serverless: boolean): DatabaseSettings {
  const poolSize = env.DATABASE_POOL_SIZE ?? (serverless ? SERVERLESS_POOL_SIZE : SERVER_POOL_SIZE);
  const idleSeconds = env.DATABASE_IDLE_SECONDS;
  if (!env.DATABASE_URL) return { url: undefined, pooled: false, directUrl: undefined, poolSize, idleSeconds, connectSeconds: undefined };
  const parsed = new URL(env.DATABASE_URL);
  const connectSeconds = connectTimeoutOf("DATABASE_URL", parsed);
  // Only checked: migrations connect on it with postgres.js, which reads the parameter itself.
  if (env.DATABASE_URL_UNPOOLED) connectTimeoutOf("DATABASE_URL_UNPOOLED", new URL(env.DATABASE_URL_UNPOOLED));
  // An explicit setting wins over the URL's look (a pooler on a host of your own).
  const pooled = env.DATABASE_POOLED ? env.DATABASE_POOLED === "true" : looksPooled(parsed);
  parsed.searchParams.delete("pgbouncer");
  const url = parsed.toString();
  const directUrl = env.DATABASE_URL_UNPOOLED ?? (pooled ? undefined : url);
  return { url, pooled, directUrl, poolSize, idleSeconds, connectSeconds };
}

/**
 * A serverless deployment has no disk that outlives a request and no process that outlives its
 * response: refuse to start where work would silently never happen.
 */
export function assertServerlessReady(settings: {
  serverless: boolean;
  databaseUrl: string | undefined;
  inngestConfigured: boolean;
  cronSecret: string | undefined;
}): void {
  if (!settings.serverless) return;
  if (!settings.databaseUrl) {
    throw new Error(
      "On Vercel (VERCEL=1) the embedded database cannot work: set DATABASE_URL to a PostgreSQL connection string " +
        "(a pooled one, e.g. Neon's '-pooler' host or '?pgbouncer=true'), and DATABASE_URL_UNPOOLED to its direct URL for migrations.",
    );
  }
  if (!settings.inngestConfigured && !settings.cronSecret) {
    throw new Error(
      "On Vercel without Inngest, webhook retries and time-driven transitions run from Vercel Cron (vercel.json): " +
        "set CRON_SECRET (16+ random characters), or configure Inngest (INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY).",
    );
  }
}

/** The URL migrations run on: a direct connection, since they hold a session advisory lock. */
export function migrationUrl(settings: DatabaseSettings): string | undefined {
  if (!settings.url) return undefined;
  if (!settings.directUrl) {
    throw new Error(
      "DATABASE_URL goes through a transaction-mode pooler, where a session advisory lock cannot be held: " +
        "set DATABASE_URL_UNPOOLED to the database's direct URL for migrations.",
    );
  }
  return settings.directUrl;
}
