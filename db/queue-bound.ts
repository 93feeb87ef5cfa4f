import type postgres from "postgres";

/**
 * The parts of a postgres.js 3.4 `Query` the queue bound reads and rewrites (not in its types):
 * `state` is set once a connection has taken the query; `cancelled`, `strings`, `args` and `options`
 * are what the connection reads when it runs it.
 */
type QueryInternals = {
  state?: unknown;
  cancelled?: unknown;
  strings: string[];
  args: unknown[];
  options: Record<string, unknown>;
  cancel: () => unknown;
};

/**
 * postgres.js queues a query while every pooled connection is busy, without limit. A query not yet
 * handed to a connection after `ms` is cancelled: postgres.js rejects it with 57014 (the API answers
 * 503) and drops it from its queue, unsent, so it cannot run after its request was answered.
 * Transactions start with such a query.
 *
 * A query can also be waiting as the first query of a connection that is still starting up (the
 * pool hands a queued query to a connection it reopens). postgres.js 3.4.9 skips a cancelled query
 * there and then never marks the connection open: it stays "connecting" until `max_lifetime`, and
 * with every connection so, the pool is stuck. So a cancelled query is also made harmless: should a
 * starting connection still hold it, it runs `select 1` in its place (its answer goes nowhere, the
 * query was already rejected), and the connection joins the pool as usual.
 */
export function boundQueueWait(client: postgres.Sql, ms: number): void {
  const unsafe = client.unsafe.bind(client);
  client.unsafe = ((...args: Parameters<typeof unsafe>) => {
    const query = unsafe(...args);
    const internals = query as unknown as QueryInternals;
    const timer = setTimeout(() => {
      if (internals.state) return;
      void internals.cancel();
      defuse(internals);
    }, ms);
    // Settling clears the timer; the query itself still runs when drizzle awaits it (postgres.js
    // defers execution by a tick, so drizzle's `.values()` still applies).
    query.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    return query;
  }) as typeof client.unsafe;
}

/** The rejected query, should a connection run it after all: a simple `select 1`, no hooks. */
function defuse(query: QueryInternals): void {
  query.cancelled = null;
  query.strings = ["select 1"];
  query.args = [];
  // Drops `onexecute` too: a cancelled `begin` must not reserve the connection for a transaction
  // that nobody will finish.
  query.options = { prepare: false, simple: true };
}
