import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { prices } from "./catalog";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { invoices } from "./invoices";
import type { PendingChange } from "./subscription-changes";
import { SUBSCRIPTION_STATUSES } from "@/lib/subscriptions/statuses";

/** `past_due`: the latest renewal invoice could not be collected and dunning is retrying it. */
export const subscriptionStatusEnum = pgEnum("subscription_status", SUBSCRIPTION_STATUSES);

/** A customer's recurring billing: all items share one currency and one interval. */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    status: subscriptionStatusEnum("status").notNull(),
    currency: text("currency").notNull(),
    currentPeriodStart: time("current_period_start").notNull(),
    currentPeriodEnd: time("current_period_end").notNull(),
    trialEnd: time("trial_end"),
    cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
    cancelledAt: time("cancelled_at"),
    pausedAt: time("paused_at"),
    /** When it last became past_due (entitlements' grace counts from it); null when it never was. */
    pastDueSince: time("past_due_since"),
    latestInvoiceId: text("latest_invoice_id").references(() => invoices.id),
    /** A sandbox payment method renewal invoices are collected with (automatic collection); null: paid out of band. */
    defaultPaymentMethod: text("default_payment_method"),
    /** `send_invoice`: its invoices are emailed and wait for the customer's payment (never collected automatically). */
    collectionMethod: text("collection_method").$type<"charge_automatically" | "send_invoice">().notNull().default("charge_automatically"),
    /** `send_invoice` only: its invoices are due this many days after finalization. */
    daysUntilDue: integer("days_until_due"),
    /** When `customer.subscription.trial_will_end` was emitted for the current trial. */
    trialWillEndNotifiedAt: time("trial_will_end_notified_at"),
    /** The id the next renewal invoice will carry, reserved when `invoice.upcoming` announced it. */
    upcomingInvoiceId: text("upcoming_invoice_id"),
    /** Change requests scheduled for the period end, in the order the renewal applies them (lib/subscription-changes/pending.ts). */
    pendingChanges: jsonb("pending_changes").$type<PendingChange[]>().notNull().default([]),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("subscriptions_account_idx").on(t.accountId, t.created, t.id),
    index("subscriptions_customer_idx").on(t.customerId, t.created, t.id),
    index("subscriptions_account_status_idx").on(t.accountId, t.status, t.created, t.id),
    // The clock's due queries: live subscriptions by period end and trial end.
    index("subscriptions_period_end_idx")
      .on(t.accountId, t.currentPeriodEnd)
      .where(sql`${t.status} <> 'cancelled'`),
    index("subscriptions_trial_end_idx")
      .on(t.accountId, t.trialEnd)
      .where(sql`${t.status} = 'trialing' and ${t.trialWillEndNotifiedAt} is null`),
  ],
);

export const subscriptionItems = pgTable(
  "subscription_items",
  {
    id: id(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    priceId: text("price_id")
      .notNull()
      .references(() => prices.id),
    quantity: integer("quantity").notNull(),
    /** The item's tax rates (`txr_…`), copied to its invoice lines; empty: the customer's or the account's default. */
    taxRateIds: jsonb("tax_rate_ids").$type<string[]>().notNull().default([]),
    /** A metered item added or switched to mid-period bills usage from here; null: from its period start. */
    usageSince: time("usage_since"),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [index("subscription_items_subscription_idx").on(t.subscriptionId, t.created, t.id)],
);

/**
 * The usage of a metered item that a change removed or switched away from mid-period:
 * `[start, end)` of its meter at its price, billed on the subscription's next invoice (renewal or
 * final) and then settled. Paused renewals settle it without an invoice (nothing is billed while paused).
 */
export const subscriptionUsageSegments = pgTable(
  "subscription_usage_segments",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    subscriptionItemId: text("subscription_item_id").notNull(),
    priceId: text("price_id")
      .notNull()
      .references(() => prices.id),
    taxRateIds: jsonb("tax_rate_ids").$type<string[]>().notNull().default([]),
    start: time("start").notNull(),
    end: time("end").notNull(),
    settledAt: time("settled_at"),
    invoiceId: text("invoice_id").references(() => invoices.id),
    created: createdAt(),
  },
  (t) => [index("subscription_usage_segments_open_idx").on(t.subscriptionId, t.start).where(sql`${t.settledAt} is null`)],
);
