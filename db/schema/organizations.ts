import { boolean, index, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, time, updatedAt } from "./columns";

/** DESIGN.md decision 12: the merchant organization's own standing with the platform. */
export const billingStatusEnum = pgEnum("billing_status", [
  "active",
  "trialing",
  "past_due",
  "cancelled",
  "no_subscription",
  "exempt",
  "orphaned",
]);

export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  billingStatus: billingStatusEnum("billing_status"),
  trialEnd: time("trial_end"),
  subscriptionEnd: time("subscription_end"),
  citProcessingEnabled: boolean("cit_processing_enabled").notNull().default(true),
  mitProcessingEnabled: boolean("mit_processing_enabled").notNull().default(true),
  created: createdAt(),
  updated: updatedAt(),
});

/** People who sign in to the dashboard. */
export const users = pgTable(
  "users",
  {
    id: id(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    email: text("email").notNull().unique(),
    name: text("name"),
    passwordHash: text("password_hash"),
    created: createdAt(),
  },
  (t) => [index("users_organization_idx").on(t.organizationId)],
);
