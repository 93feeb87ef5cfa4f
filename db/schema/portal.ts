import { index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { PortalFlow, PortalSettings } from "@/lib/portal/schema";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";

/** The hosted customer portal's configuration of an account (none: the defaults of lib/portal/schema.ts). */
export const portalConfigurations = pgTable("portal_configurations", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  settings: jsonb("settings").$type<PortalSettings>().notNull(),
  updated: updatedAt(),
});

/**
 * A portal session (`bps_`): the single-use link the merchant hands its customer, then the browser
 * session it starts. Only SHA-256 hashes of the link's token and of the cookie's token are kept.
 */
export const portalSessions = pgTable(
  "portal_sessions",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    returnUrl: text("return_url"),
    flow: jsonb("flow").$type<PortalFlow | null>(),
    linkTokenHash: text("link_token_hash").notNull(),
    /** The link's end (account clock): one hour after `created`. */
    expiresAt: time("expires_at").notNull(),
    /** When the link was opened (it opens once). */
    linkUsedAt: time("link_used_at"),
    cookieTokenHash: text("cookie_token_hash"),
    /** The browser session's last request: it ends 30 minutes after. */
    lastSeenAt: time("last_seen_at"),
    created: createdAt(),
  },
  (table) => [
    uniqueIndex("portal_sessions_link_token_idx").on(table.linkTokenHash),
    uniqueIndex("portal_sessions_cookie_token_idx").on(table.cookieTokenHash),
    index("portal_sessions_customer_idx").on(table.customerId),
  ],
);
