import { bigint, boolean, index, integer, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, time } from "./columns";
import { organizations } from "./organizations";

export const accounts = pgTable(
  "accounts",
  {
    id: id(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    /** Live or sandbox is a property of the account, not of identifiers (DESIGN.md decision 1). */
    livemode: boolean("livemode").notNull(),
    /**
     * The test clock: how far this account's time runs ahead of the real clock (sandbox only).
     * Every domain timestamp of the account is real time plus this offset (lib/clock).
     */
    clockOffsetMs: bigint("clock_offset_ms", { mode: "number" }).notNull().default(0),
    /** How long a past_due subscription keeps granting its features (lib/entitlements/grace.ts reads it). */
    entitlementPastDueGraceDays: integer("entitlement_past_due_grace_days").notNull().default(7),
    created: createdAt(),
  },
  (t) => [index("accounts_organization_idx").on(t.organizationId)],
);

export const tokenKindEnum = pgEnum("token_kind", ["secret", "publishable"]);

/**
 * API tokens. The token itself is never stored: only its SHA-256, a display prefix and its last
 * four characters. `id` is the public, non-secret handle (shown in the dashboard, used as actor_id).
 */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    kind: tokenKindEnum("kind").notNull(),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    displayPrefix: text("display_prefix").notNull(),
    lastFour: text("last_four").notNull(),
    created: createdAt(),
    lastUsedAt: time("last_used_at"),
    revokedAt: time("revoked_at"),
    /** Who made it: a user id, or `seed` for the demo tokens that `npm run seed` re-issues. */
    createdBy: text("created_by"),
  },
  (t) => [index("api_tokens_account_idx").on(t.accountId, t.created, t.id)],
);
