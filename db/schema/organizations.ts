import { boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";

export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  /** The operator's own organization: its accounts bill every other organization (billing status). */
  platform: boolean("platform").notNull().default(false),
  /** Operators exempt an organization from platform billing (billing_status `exempt`). */
  billingExempt: boolean("billing_exempt").notNull().default(false),
  /** The customer (`cus_…`) that stands for this organization on the platform's billing account. */
  platformCustomerId: text("platform_customer_id"),
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
    /**
     * Sessions carry the version they were issued under; signing out or changing the password
     * increments it, which ends every session issued before (lib/auth/revocation.ts).
     */
    sessionVersion: integer("session_version").notNull().default(0),
    created: createdAt(),
  },
  (t) => [index("users_organization_idx").on(t.organizationId)],
);
