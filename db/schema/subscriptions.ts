import { boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { prices } from "./catalog";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { invoices } from "./invoices";

/**
 * The statuses this service reaches. `past_due`, `unpaid` and `incomplete` need automatic
 * collection, which does not exist yet (invoices are paid out of band), so they are not offered.
 */
export const subscriptionStatusEnum = pgEnum("subscription_status", ["trialing", "active", "paused", "cancelled"]);

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
    latestInvoiceId: text("latest_invoice_id").references(() => invoices.id),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("subscriptions_account_idx").on(t.accountId, t.created, t.id),
    index("subscriptions_customer_idx").on(t.customerId, t.created),
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
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [index("subscription_items_subscription_idx").on(t.subscriptionId, t.created, t.id)],
);
