import { bigint, date, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Exact totals of the lists other than events (db/list-totals.ts): per scope (the account,
 * or the endpoint for an endpoint's deliveries), list, key (`""` for all, `status=paid`,
 * `active=true&type=recurring`, …) and the UTC day the objects were created on. Only the
 * compaction (compactListCounts) writes here, folding in list_count_deltas.
 */
export const listCounts = pgTable(
  "list_counts",
  {
    scopeId: text("scope_id").notNull(),
    list: text("list").notNull(),
    key: text("key").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scopeId, t.list, t.key, t.day] })],
);

/**
 * The changes to list_counts not yet folded in: statement triggers on each counted table append
 * one row per (scope, list, key, day) a statement changed, in that statement's transaction
 * (generated from db/list-declarations.ts by db/list-triggers.ts). Appending never waits on another
 * writer, nor deadlocks with one, and a rolled-back transaction takes its rows with it; a total is
 * list_counts plus these.
 */
export const listCountDeltas = pgTable(
  "list_count_deltas",
  {
    scopeId: text("scope_id").notNull(),
    list: text("list").notNull(),
    key: text("key").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    delta: integer("delta").notNull(),
  },
  (t) => [index("list_count_deltas_key_idx").on(t.scopeId, t.list, t.key, t.day)],
);
