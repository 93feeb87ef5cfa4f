import type postgres from "postgres";

/**
 * How many distinct statement texts a pool prepares. Past it, new texts run unprepared as before.
 * postgres.js keeps a statement per text and parameter types (a null where a string was is another
 * one), so a connection holds at most this many texts, each in the few type signatures its
 * parameters take: bounded, whatever the queries.
 */
export const PREPARED_TEXTS_PER_POOL = 2_000;

/**
 * The tables that grow without bound and whose rows are spread very unevenly between accounts (one
 * account's million events beside another's ten; a meter's busy hours): a statement that reads them
 * is planned for each run's parameters, because a plan made once for average values can pick the
 * wrong index for an account far from the average (the events' filters, the usage windows, the
 * webhook claim's skip scan). Every other statement is prepared and left to PostgreSQL's plan cache
 * (`plan_cache_mode=auto`: planned for its first five runs, then once for all runs when that plan
 * costs no more), so a write is not planned again on every run: planning was two fifths of
 * PostgreSQL's time in the billing property test (docs/performance.md).
 */
export const PLANNED_PER_RUN_TABLES = ["events", "event_deliveries", "usage_events", "usage_hourly", "usage_hourly_unique"] as const;

/** Reads one of PLANNED_PER_RUN_TABLES (`from` or `join` it; an `insert into` it reads nothing). */
const readsPlannedPerRunTable = new RegExp(`\\b(?:from|join)\\s+"?(?:${PLANNED_PER_RUN_TABLES.join("|")})"?(?![\\w"])`, "i");

/**
 * The first words of a statement that reads PLANNED_PER_RUN_TABLES only by primary key (the rows a
 * batch names): no account's size changes its plan, so it is prepared like any other. Without it
 * the attempt records (lib/webhooks/record.ts) were parsed and planned on every batch: 3.6 ms of
 * PostgreSQL's time a call with three endpoints, 2.7 ms prepared (docs/performance.md).
 */
export const PLANNED_ONCE_MARK = "/* planned once: reads by primary key */";

/**
 * Whether a statement text must be planned for each run's parameters. Such a text is sent
 * unprepared: PostgreSQL parses an unnamed statement afresh on each run and always plans it for
 * the values bound to it.
 */
export function plannedPerRun(query: string): boolean {
  return !query.trimStart().startsWith(PLANNED_ONCE_MARK) && readsPlannedPerRunTable.test(query);
}

type Unsafe = postgres.Sql["unsafe"];
type Begin = (...args: unknown[]) => Promise<unknown>;
/** A pool's or a transaction's `sql`: what is wrapped. */
type Scope = { unsafe: Unsafe; savepoint?: Begin };

/**
 * drizzle runs its queries unprepared (`unsafe(…, { prepare: false })`) unless a query is named, so
 * PostgreSQL parses, analyses and plans every statement on every run: in the billing property test
 * the backends were in PARSE in three of every five samples they were busy. This makes the pool
 * prepare what it is given, once per connection (postgres.js keeps each connection's statements by
 * text): a repeat is only bound and executed, and planned again only as PostgreSQL's plan cache
 * decides. What `plannedPerRun` names stays unprepared. Queries inside a transaction run on the
 * transaction's own `sql`, so `begin`'s callback gets it wrapped too.
 *
 * The texts are the code's (drizzle's parameters are never in them), but some vary with a list's
 * length (`in ($1, $2, …)`): only the first PREPARED_TEXTS_PER_POOL distinct texts are prepared, so
 * a connection's statements stay bounded. Not through a transaction-mode pooler, where a statement
 * prepared on one server connection is unknown on the next (the caller's `pooled`).
 */
export function prepareStatements(client: postgres.Sql, limit = PREPARED_TEXTS_PER_POOL): void {
  const prepared = new Set<string>();
  const preparing = (query: string): boolean => {
    if (prepared.has(query)) return true;
    if (prepared.size >= limit || plannedPerRun(query)) return false;
    prepared.add(query);
    return true;
  };
  const wrap = (sql: Scope): void => {
    const unsafe = sql.unsafe.bind(sql) as Unsafe;
    sql.unsafe = ((query: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) =>
      unsafe(query, params as never, options?.prepare === false && preparing(query) ? { ...options, prepare: true } : options)) as Unsafe;
    // A savepoint (drizzle's nested transaction) runs on a `sql` of its own as well.
    if (sql.savepoint) sql.savepoint = wrapCallback(sql.savepoint.bind(sql) as Begin);
  };
  const wrapCallback =
    (start: Begin): Begin =>
    (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback !== "function") return start(...args);
      return start(...args.slice(0, -1), (sql: Scope) => (wrap(sql), (callback as (sql: Scope) => unknown)(sql)));
    };
  wrap(client as unknown as Scope);
  client.begin = wrapCallback(client.begin.bind(client) as unknown as Begin) as unknown as typeof client.begin;
}
