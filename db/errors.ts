/** PostgreSQL SQLSTATE lock_not_available: a NOWAIT lock found the row locked. */
const LOCK_NOT_AVAILABLE = "55P03";

/** The SQLSTATE of a database error; drizzle wraps the driver's error as `cause`. */
function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether a `for update nowait` failed because another transaction holds the row. */
export function isLockNotAvailable(error: unknown): boolean {
  return sqlState(error) === LOCK_NOT_AVAILABLE;
}

/** PostgreSQL SQLSTATE deadlock_detected: the database broke a lock cycle by failing this transaction. */
const DEADLOCK_DETECTED = "40P01";

/** Whether the database failed the statement to break a deadlock (the transaction rolled back whole). */
export function isDeadlock(error: unknown): boolean {
  return sqlState(error) === DEADLOCK_DETECTED;
}

/** postgres.js and Node socket errors that say the database cannot be reached right now. */
const UNREACHABLE_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** Codes of an error that ended the connection a query ran on (the session is gone). */
const CONNECTION_LOST_CODES = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);

/** The error's own, or a cause's, field; drizzle wraps the driver's error as `cause`. */
function* chain(error: unknown): Generator<{ code?: unknown; severity?: unknown }> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    yield current as { code?: unknown; severity?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * A FATAL (or PANIC) error from the server ends the session: the server cannot serve it (it does
 * not accept connections to the database, 55000; too many connections; a terminated backend; …).
 */
function isFatal(error: { severity?: unknown }): boolean {
  return error.severity === "FATAL" || error.severity === "PANIC";
}

/** Whether the query's connection was lost (closed, reset, cut as silent, or ended by the server). */
export function isConnectionLost(error: unknown): boolean {
  for (const link of chain(error)) {
    if ((typeof link.code === "string" && CONNECTION_LOST_CODES.has(link.code)) || isFatal(link)) return true;
  }
  return false;
}

/**
 * Whether an error means "the database is unavailable, try again shortly": it cannot be reached,
 * it is shutting down or starting, it has no connection slot, it ended the session (any FATAL
 * error, e.g. 55000 when the database does not accept connections), or a statement ran out of time.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const link of chain(error)) {
    if (isFatal(link)) return true;
    const code = link.code;
    if (typeof code === "string") {
      if (UNREACHABLE_CODES.has(code)) return true;
      // 08: connection exception; 57P01-57P03: shutdown, crash, cannot connect now; 53300: too
      // many connections; 57014: statement timeout.
      if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === "53300" || code === "57014") return true;
    }
  }
  return false;
}
