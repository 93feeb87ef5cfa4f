import { sql } from "drizzle-orm";
import { bigint, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time } from "./columns";

/**
 * A usage, spend or credit-balance alert (lib/alerts, docs/usage-billing.md "Alerts"): `alrt_…`,
 * for one customer or (customer null) for each customer of the account separately.
 */
export const alerts = pgTable(
  "alerts",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** One of ALERT_TYPES (lib/alerts/statuses.ts). */
    type: text("type").notNull(),
    title: text("title"),
    /** usage_threshold: the meter counted. */
    meterId: text("meter_id"),
    /** Only this customer; null: every customer, each on its own. */
    customerId: text("customer_id"),
    /** usage_threshold: the meter's value in the period at which it fires (≥). */
    threshold: bigint("threshold", { mode: "number" }),
    /** spend_threshold: the upcoming invoice's total at which it fires (≥), in atoms of `currency`. */
    thresholdAtom: bigint("threshold_atom", { mode: "number" }),
    /** credit_balance: fires when the balance is below this, in atoms of `currency`. */
    belowAtom: bigint("below_atom", { mode: "number" }),
    currency: text("currency"),
    /** One of ALERT_STATUSES: `active`, `archived`. */
    status: text("status").notNull(),
    created: createdAt(),
    archivedAt: time("archived_at"),
  },
  (t) => [
    index("alerts_account_idx").on(t.accountId, t.created, t.id),
    // The evaluator reads the active alerts of an account (and of one customer).
    index("alerts_active_idx").on(t.accountId, t.customerId).where(sql`${t.status} = 'active'`),
  ],
);

/**
 * Customers whose alerts must be evaluated: usage ingestion and balance changes upsert one row per
 * customer (cheap: no aggregate is read there); the evaluator (lib/alerts/evaluate.ts) reads the
 * row, evaluates, and deletes it only when `seq` did not move meanwhile.
 */
export const alertMarks = pgTable(
  "alert_marks",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull().default(1),
    /** On the account's clock: when it falls due for the evaluator. */
    markedAt: time("marked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.customerId] }), index("alert_marks_due_idx").on(t.markedAt)],
);

/**
 * One alert crossed for one customer in one period (`atrg_…`): its unique key makes
 * `alert.triggered` once per (alert, customer, period) whatever the number of evaluators; the
 * row is inserted in the event's transaction. `resolved_at` is set with `alert.resolved` when the
 * period ends.
 */
export const alertTriggers = pgTable(
  "alert_triggers",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    alertId: text("alert_id")
      .notNull()
      .references(() => alerts.id),
    customerId: text("customer_id").notNull(),
    periodStart: time("period_start").notNull(),
    periodEnd: time("period_end").notNull(),
    /** The value that crossed: the meter's usage, the upcoming total in atoms, or the balance in atoms. */
    value: bigint("value", { mode: "number" }).notNull(),
    /** When it triggered (on the account's clock). */
    created: time("created").notNull(),
    resolvedAt: time("resolved_at"),
  },
  (t) => [
    uniqueIndex("alert_triggers_once_idx").on(t.alertId, t.customerId, t.periodStart),
    index("alert_triggers_account_idx").on(t.accountId, t.created, t.id),
    index("alert_triggers_customer_idx").on(t.accountId, t.customerId, t.created, t.id),
    index("alert_triggers_unresolved_idx").on(t.accountId, t.periodEnd).where(sql`${t.resolvedAt} is null`),
  ],
);
