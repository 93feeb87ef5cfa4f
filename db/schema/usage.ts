import { sql } from "drizzle-orm";
import { bigint, boolean, index, pgEnum, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";

export const meterAggregationEnum = pgEnum("meter_aggregation", ["sum", "count", "max", "last", "unique_count"]);

/** What a usage event's `event_name` measures and how its values add up over a period. */
export const meters = pgTable(
  "meters",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    eventName: text("event_name").notNull(),
    displayName: text("display_name").notNull(),
    aggregation: meterAggregationEnum("aggregation").notNull(),
    valueKey: text("value_key").notNull(),
    active: boolean("active").notNull().default(true),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("meters_account_idx").on(t.accountId, t.created, t.id),
    // event_name is unique among the account's active meters (a deactivated one frees it).
    uniqueIndex("meters_active_event_name_idx").on(t.accountId, t.eventName).where(sql`${t.active}`),
  ],
);

/**
 * Every identifier an account has ingested (the deduplication table): one row per accepted event,
 * kept as long as its event (at least 35 days; docs/usage-billing.md, "Storage and scale"). `body_hash` tells
 * a retry (`duplicate`) from a different event reusing the identifier (a conflict).
 */
export const usageEventKeys = pgTable(
  "usage_event_keys",
  {
    accountId: text("account_id").notNull(),
    identifier: text("identifier").notNull(),
    bodyHash: text("body_hash").notNull(),
    /** The event's timestamp: where its row lives in the partitioned `usage_events`. */
    ts: time("ts").notNull(),
    received: time("received").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.identifier] }), index("usage_event_keys_received_idx").on(t.received)],
);

/**
 * The accepted usage events, partitioned by month of `ts` (declarative range partitioning, made in
 * the migration by hand: drizzle does not declare partitions; lib/usage/partitions.ts creates the
 * months ahead). Reads of usage go through the hourly aggregates, never these rows of closed hours.
 */
export const usageEvents = pgTable(
  "usage_events",
  {
    accountId: text("account_id").notNull(),
    identifier: text("identifier").notNull(),
    meterId: text("meter_id").notNull(),
    customerId: text("customer_id").notNull(),
    ts: time("ts").notNull(),
    /** The meter's `value_key` as an integer (sum, max, last); 1 for count. */
    value: bigint("value", { mode: "number" }).notNull(),
    /** The counted key's value (unique_count), else null. */
    uniqueValue: text("unique_value"),
    payload: text("payload").notNull(),
    received: time("received").notNull(),
    cancelledAt: time("cancelled_at"),
  },
  (t) => [
    primaryKey({ columns: [t.ts, t.accountId, t.identifier] }),
    index("usage_events_latest_idx").on(t.accountId, t.meterId, t.customerId, t.ts),
  ],
);

/**
 * Per (account, meter, customer, hour): the sum, count, max and last value of its events that are
 * not cancelled, kept by the ingestion statement itself (an upsert), so a period's usage reads a
 * few hundred rows whatever the events.
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    accountId: text("account_id").notNull(),
    meterId: text("meter_id").notNull(),
    customerId: text("customer_id").notNull(),
    hour: time("hour").notNull(),
    sumValue: bigint("sum_value", { mode: "number" }).notNull(),
    eventCount: bigint("event_count", { mode: "number" }).notNull(),
    maxValue: bigint("max_value", { mode: "number" }),
    lastTs: time("last_ts"),
    lastValue: bigint("last_value", { mode: "number" }),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.meterId, t.customerId, t.hour] })],
);

/**
 * unique_count meters: per hour, each distinct value with how many live events carry it (so a
 * cancellation lowers the count and a value disappears with its last event).
 */
export const usageHourlyUnique = pgTable(
  "usage_hourly_unique",
  {
    accountId: text("account_id").notNull(),
    meterId: text("meter_id").notNull(),
    customerId: text("customer_id").notNull(),
    hour: time("hour").notNull(),
    value: text("value").notNull(),
    events: bigint("events", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.meterId, t.customerId, t.hour, t.value] })],
);
