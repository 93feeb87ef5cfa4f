import { sql } from "drizzle-orm";
import { bigint, date, index, integer, jsonb, pgEnum, pgTable, primaryKey, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id } from "./columns";

export const actorTypeEnum = pgEnum("actor_type", ["user", "api_key", "system", "customer"]);

/**
 * The audit trail. Rows are only ever inserted (lib/events/emit.ts). Every filter of the events
 * list is served by an index that also yields the `created desc, id desc` order (scanned backwards:
 * drizzle's `.desc()` would emit NULLS LAST, which `order by … desc` cannot use).
 */
export const events = pgTable(
  "events",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    type: text("type").notNull(),
    aggregateType: text("aggregate_type").notNull(),
    aggregateId: text("aggregate_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    previousData: jsonb("previous_data").$type<Record<string, unknown>>(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    correlationId: text("correlation_id"),
    /** The `req_…` id of the API request that emitted the event; null for background work. */
    requestId: text("request_id"),
    version: integer("version").notNull(),
    /** Position on the aggregate's timeline: 1, 2, 3… with no gap (lib/events/sequence.ts). */
    sequence: integer("sequence").notNull(),
    created: createdAt(),
    actorType: actorTypeEnum("actor_type"),
    actorId: text("actor_id"),
  },
  (t) => [
    index("events_account_created_idx").on(t.accountId, t.created, t.id),
    index("events_account_aggregate_idx").on(t.accountId, t.aggregateId, t.created, t.id),
    index("events_account_aggregate_type_idx").on(t.accountId, t.aggregateType, t.created, t.id),
    index("events_account_type_idx").on(t.accountId, t.type, t.created, t.id),
    // The listen feed reads an account's events in id (creation) order after a cursor.
    index("events_account_id_idx").on(t.accountId, t.id),
    // A request log's page lists the events its request caused.
    index("events_account_request_idx").on(t.accountId, t.requestId).where(sql`${t.requestId} is not null`),
    uniqueIndex("events_aggregate_sequence_idx").on(t.accountId, t.aggregateId, t.sequence),
  ],
);

/**
 * The last sequence number given on each aggregate's timeline. Incremented with an upsert in the
 * event's transaction: its row lock orders concurrent emitters of one aggregate, so two events of
 * one entity never share a number and a rolled-back one leaves no gap.
 */
export const eventSequences = pgTable(
  "event_sequences",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    aggregateId: text("aggregate_id").notNull(),
    lastSequence: integer("last_sequence").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.aggregateId] })],
);

/**
 * Exact event totals, kept in the transaction that writes each event (lib/events/counts.ts), so
 * a list's `total` never counts millions of rows. One row per account, dimension (`all`,
 * `aggregate_type` or `type`), value, UTC day and shard: a writer adds 1 to one of
 * EVENT_COUNT_SHARDS rows per dimension (dealt in turn), so one account's concurrent writers rarely wait on each
 * other; readers sum the shards (and days). A rolled-back transaction rolls its counts back.
 */
export const eventCounts = pgTable(
  "event_counts",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    dimension: text("dimension", { enum: ["all", "aggregate_type", "type"] }).notNull(),
    value: text("value").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    shard: smallint("shard").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.dimension, t.value, t.day, t.shard] })],
);
