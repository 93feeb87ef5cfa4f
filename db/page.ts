import { and, asc, desc, eq, getTableColumns, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { ServiceError } from "@/lib/errors";
import { rowsOf } from "@/lib/rows";
import { getDb, type Database, type Executor } from "./client";
import {
  countKey,
  filtersByParent,
  LIST_DECLARATIONS,
  shownRows,
  type ListDeclaration,
  type ListedTable,
  type ListFilters,
  type ListName,
} from "./list-declarations";
import { countedListTotal, type CreatedRange, type ExactCount } from "./list-totals";

/** The column alias of the count in the first page's statement (no table has such a column). */
const TOTAL = "__total";

export type { CreatedRange };

export type PageOptions = {
  /**
   * How many rows match `where` within `range`, as one SQL expression, when the list keeps its
   * totals (listQuery; the events list: lib/events/counts.ts). `exact` counts the matching rows
   * created within a range over the list's index (the default, for the whole range).
   */
  total?: (range: CreatedRange, exact: ExactCount) => SQL;
  /**
   * `where` is a search whose few matches its own indexes find (the customers' `q`): sort them
   * rather than walk the list's `(…, created, id)` index. Page and total cost its matches.
   */
  search?: boolean;
  /**
   * A rank to order by before `(created, id)`, ascending (a search's prefix matches, 0, before its
   * other matches, 1). Cursors carry on within the cursor's rank, then the next ranks.
   */
  rank?: SQL<number>;
};

/**
 * The page statement of a declared list (db/list-declarations.ts): its table, the rows it shows in
 * `scopeId` matching `filters`, and its totals, kept by the triggers generated from the same
 * declaration. A list filtered by its parent (a customer's invoices, a payment's refunds…) counts
 * the parent's index range instead: a parent's children are few.
 */
export function listQuery<N extends ListName>(
  name: N,
  scopeId: string,
  filters: ListFilters<N>,
): { table: (typeof LIST_DECLARATIONS)[N]["table"]; where: SQL; options: PageOptions } {
  const declaration: ListDeclaration = LIST_DECLARATIONS[name];
  const options: PageOptions = filtersByParent(declaration, filters)
    ? {}
    : { total: (range, exact) => countedListTotal({ list: name, scopeId, key: countKey(declaration, filters) }, range, exact) };
  return { table: LIST_DECLARATIONS[name].table, where: shownRows(declaration, scopeId, filters), options };
}

export function createdRangeOf(page: Partial<Page>): CreatedRange {
  return { gte: page["created[gte]"], lt: page["created[lt]"] };
}

/**
 * Planner settings under which a list's statement can only walk its `(…, created, id)` index in
 * order (tests/api/list-plans.test.ts shows every list has one that serves it so).
 */
export const INDEX_ORDER_SETTINGS = sql`select set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`;

/**
 * Runs a deep page's statement where the planner must walk the list's index in order. Left to its
 * statistics, the planner compares offset + limit with the rows it expects to match: after a bulk
 * load it has not analyzed, it expects a few thousand where there are a million, and reads them all
 * (a bitmap scan) to sort them (650–860 ms at offset 10,000 instead of 8 ms). Walking the index
 * costs offset + limit entries whatever the statistics say. The settings last for this transaction.
 */
async function inIndexOrder<R>(db: Database, run: (executor: Executor) => Promise<R>): Promise<R> {
  return db.transaction(async (tx) => {
    await tx.execute(INDEX_ORDER_SETTINGS);
    return run(tx);
  });
}

function cursorError(name: string, id: string): ServiceError {
  return new ServiceError("bad_request", `${name}: '${id}' is not an item of this list.`, {
    errors: [{ field: name, message: "Must be the id of an item of this list." }],
  });
}

/**
 * One page of a table's rows matching `where`, newest first (`created desc, id desc`, the order
 * every list of the API uses; each list has an index on `(account_id, [filter,] created, id)`
 * that yields it), how many rows match in all, and whether more follow.
 *
 * Paging is by `offset` (bounded, see OFFSET_MAX) or by a cursor: `starting_after` /
 * `ending_before` name an item of the list, and the page is the keyset range after / before its
 * `(created, id)`, so its cost does not depend on depth and concurrent inserts neither repeat
 * nor skip an item. One row more than asked tells `has_more` without counting.
 */
export async function pageOf<T extends ListedTable>(
  table: T,
  where: SQL | undefined,
  page: Partial<Page> & Pick<Page, "limit" | "offset">,
  options: PageOptions = {},
): Promise<{ rows: T["$inferSelect"][] } & PageInfo> {
  if (page.starting_after && page.ending_before) {
    throw new ServiceError("bad_request", "Pass either starting_after or ending_before, not both.", {
      errors: [{ field: "ending_before", message: "Cannot be combined with starting_after." }],
    });
  }
  const db = await getDb();
  // A generic table loses drizzle's row inference; the rows are exactly the table's.
  const from = table as PgTable;
  const range = createdRangeOf(page);
  const filtered = and(
    where,
    range.gte ? gte(table.created, range.gte) : undefined,
    range.lt ? lt(table.created, range.lt) : undefined,
  );

  const cursorId = page.starting_after ?? page.ending_before;
  let keyset: SQL | undefined;
  if (cursorId !== undefined) {
    const [cursor] = await db
      .select({ created: table.created, id: table.id, rank: options.rank ?? sql<number>`0` })
      .from(from)
      // An export's cursor is its own previous batch's last item (never a client's): still the
      // keyset when that item has left the list meanwhile.
      .where(page.exportBatch ? eq(table.id, cursorId) : and(where, eq(table.id, cursorId)));
    if (!cursor) throw cursorError(page.starting_after ? "starting_after" : "ending_before", cursorId);
    // A row comparison is one index condition on (…, created, id): the scan starts at the cursor.
    const at = sql`${(cursor.created as Date).toISOString()}::timestamptz`;
    keyset = page.starting_after
      ? sql`(${table.created}, ${table.id}) < (${at}, ${cursor.id})`
      : sql`(${table.created}, ${table.id}) > (${at}, ${cursor.id})`;
    if (options.rank) {
      // Rank ascends while (created, id) descends: the rows after the cursor are its rank's older
      // ones, then every row of the ranks after it (before it: mirrored).
      const rank = Number(cursor.rank);
      keyset = page.starting_after
        ? sql`(${options.rank} > ${rank} or (${options.rank} = ${rank} and ${keyset}))`
        : sql`(${options.rank} < ${rank} or (${options.rank} = ${rank} and ${keyset}))`;
    }
  }
  const newer = page.ending_before !== undefined;
  // A search sorts its matches: an expression no index yields keeps the planner off the list's
  // order index, which it would walk past every row that does not match (a prefix whose matches are
  // all old: 876,000 rows for 11 at 1 M customers).
  const created = options.search ? sql`(${table.created} + interval '0 seconds')` : table.created;
  const rankOrder = options.rank ? [newer ? desc(options.rank) : asc(options.rank)] : [];
  const order = newer ? [...rankOrder, asc(created), asc(table.id)] : [...rankOrder, desc(created), desc(table.id)];
  const condition = and(filtered, keyset);
  const take = page.limit + 1;

  const exact: ExactCount = (since, until) =>
    sql`(select count(*) from ${from} where ${and(where, since ? gte(table.created, since) : undefined, until ? lt(table.created, until) : undefined)})`;
  const totalSql = sql<number>`(${(options.total ?? ((r: CreatedRange) => exact(r.gte, r.lt)))(range, exact)})::int`;
  const totalQuery = async () => rowsOf<{ total: number }>(await db.execute(sql`select ${totalSql} as total`))[0]?.total ?? 0;
  let found: unknown[];
  let total: number;
  if (page.exportBatch) {
    found = await db.select().from(from).where(condition).orderBy(...order).limit(take);
    total = -1;
  } else if (page.offset === 0) {
    // The first page: the page and its total in one statement (one round trip, one snapshot; the
    // total is an uncorrelated subquery, run once).
    // A search's first page counts its matches in the same scan (a window over every match, taken
    // before the limit) rather than scanning them twice: its matches come from a bitmap, not a range.
    const firstTotal = options.search && cursorId === undefined ? sql<number>`(count(*) over ())::int` : totalSql;
    const rows = await db
      .select({ ...getTableColumns(from), [TOTAL]: firstTotal })
      .from(from)
      .where(condition)
      .orderBy(...order)
      .limit(take);
    // No row: the total is then needed apart only after a cursor (else nothing matched at all).
    total = rows.length > 0 ? (rows[0]![TOTAL] as number) : cursorId === undefined ? 0 : await totalQuery();
    found = rows.map(({ [TOTAL]: _total, ...row }) => row);
  } else {
    // Skip over the index only (ids), then read the page's rows by primary key: a deep offset
    // costs index entries, not whole rows.
    const deep = async () => {
      const skip = (executor: Executor) =>
        executor.select({ id: table.id }).from(from).where(condition).orderBy(...order).limit(take).offset(page.offset);
      const ids = (options.search ? await skip(db) : await inIndexOrder(db, skip)).map((row) => row.id as string);
      if (ids.length === 0) return [];
      const byId = new Map((await db.select().from(from).where(inArray(table.id, ids))).map((row) => [(row as { id: string }).id, row]));
      return ids.flatMap((id) => byId.get(id) ?? []); // one deleted meanwhile is left out
    };
    [found, total] = await Promise.all([deep(), totalQuery()]);
  }
  const hasMore = found.length > page.limit;
  const rows = found.slice(0, page.limit);
  if (newer) rows.reverse();
  return { rows: rows as T["$inferSelect"][], total, hasMore };
}
