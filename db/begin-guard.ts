import type postgres from "postgres";
import { isConnectionLost } from "./errors";

type Callback = (sql: Scope) => unknown;
type Scope = { savepoint?: (...args: unknown[]) => unknown };
type Begin = (...args: unknown[]) => Promise<unknown>;

/** How long a failed transaction waits for postgres.js to report its connection's close. */
const CLOSE_WAIT_MS = 1_000;

/**
 * postgres.js 3.4.9 rolls a failed transaction (or savepoint) back on its connection even when the
 * connection has closed: the `rollback` is written to a socket that is gone, which throws from a
 * timer (an uncaught `TypeError: Cannot read properties of null (reading 'write')`) and leaves the
 * statement pending on the closed connection. When the callback failed because the connection was
 * lost and postgres.js has rejected the transaction for that close, the callback is left unsettled
 * instead, so no rollback is sent: the server rolled the transaction back when the session ended.
 * If the transaction has not been rejected within CLOSE_WAIT_MS, the connection is alive after all
 * and the callback fails as usual.
 */
export function guardBegin(client: postgres.Sql): void {
  const begin = client.begin.bind(client) as unknown as Begin;
  client.begin = ((...args: unknown[]) => {
    let closed = false;
    const callback = args.at(-1);
    if (typeof callback !== "function") return begin(...args);
    const result = begin(...args.slice(0, -1), guarded(callback as Callback, () => closed, () => settled));
    // Settles when the transaction ends: with its callback, or at once when its connection closes.
    const settled = result.then(
      () => undefined,
      () => {
        closed = true;
      },
    );
    return result;
  }) as unknown as typeof client.begin;
}

function guarded(callback: Callback, closed: () => boolean, settled: () => Promise<void>): Callback {
  return (sql) => {
    const savepoint = sql.savepoint?.bind(sql);
    if (savepoint) {
      // Only the callback form (drizzle's); a tagged `savepoint` passes through unchanged.
      sql.savepoint = (...args: unknown[]) => {
        const inner = args.at(-1);
        if (typeof inner !== "function") return savepoint(...args);
        return savepoint(...args.slice(0, -1), guarded(inner as Callback, closed, settled));
      };
    }
    return new Promise((resolve, reject) => {
      Promise.resolve()
        .then(() => callback(sql))
        .then(resolve, async (error: unknown) => {
          if (isConnectionLost(error)) {
            await Promise.race([settled(), new Promise((wait) => setTimeout(wait, CLOSE_WAIT_MS))]);
            if (closed()) return;
          }
          reject(error);
        });
    });
  };
}
