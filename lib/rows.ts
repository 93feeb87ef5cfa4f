/**
 * The single row a statement returned (`insert … returning`, `update … returning` of a locked
 * row): the database guarantees it, so its absence is a bug, reported as one rather than as a
 * `TypeError` on `undefined` further on.
 */
export function one<T>(rows: readonly T[], what = "row"): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`Internal error: the statement returned no ${what}, one was expected.`);
  return row;
}

/** Raw `execute` results: postgres.js returns the rows, PGlite an object holding them. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
