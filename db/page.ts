import { count, desc, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { getDb } from "./client";

type ListedTable = PgTable & { created: PgColumn; id: PgColumn };

/**
 * One page of a table's rows matching `where`, newest first (`created desc, id desc`, the order
 * every list of the API uses and its indexes serve), and how many rows match in all.
 */
export async function pageOf<T extends ListedTable>(
  table: T,
  where: SQL | undefined,
  page: { limit: number; offset: number },
): Promise<{ rows: T["$inferSelect"][]; total: number }> {
  const db = await getDb();
  // A generic table loses drizzle's row inference; the rows are exactly the table's.
  const from = table as PgTable;
  const [rows, [totals]] = await Promise.all([
    db.select().from(from).where(where).orderBy(desc(table.created), desc(table.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(from).where(where),
  ]);
  return { rows: rows as T["$inferSelect"][], total: totals?.total ?? 0 };
}
