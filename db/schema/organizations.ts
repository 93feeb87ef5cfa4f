import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, time, updatedAt } from "./columns";

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
    /** What the user may do in the dashboard (docs/teams.md): owner, admin, developer or viewer. */
    role: text("role", { enum: ["owner", "admin", "developer", "viewer"] }).notNull().default("owner"),
    /**
     * Sessions carry the version they were issued under; signing out or changing the password
     * increments it, which ends every session issued before (lib/auth/revocation.ts).
     */
    sessionVersion: integer("session_version").notNull().default(0),
    created: createdAt(),
  },
  (t) => [
    index("users_organization_idx").on(t.organizationId),
    check("users_role_check", sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
  ],
);

/**
 * An invitation to join an organization with a role: a link carrying a token shown once (only its
 * SHA-256 is stored), single use, valid 7 days, revocable (docs/teams.md).
 */
export const invitations = pgTable(
  "invitations",
  {
    id: id(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** The invitee's email: the account created from the link has exactly this email. */
    email: text("email").notNull(),
    role: text("role", { enum: ["owner", "admin", "developer", "viewer"] }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    /** The user who invited (null once that user was removed). */
    invitedBy: text("invited_by"),
    expiresAt: time("expires_at").notNull(),
    acceptedAt: time("accepted_at"),
    acceptedUserId: text("accepted_user_id"),
    revokedAt: time("revoked_at"),
    created: createdAt(),
  },
  (t) => [
    index("invitations_organization_idx").on(t.organizationId, t.created),
    check("invitations_role_check", sql`${t.role} in ('owner', 'admin', 'developer', 'viewer')`),
  ],
);
