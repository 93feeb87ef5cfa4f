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
