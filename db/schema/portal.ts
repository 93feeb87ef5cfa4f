import { jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { PortalSettings } from "@/lib/portal/schema";
import { accounts } from "./accounts";
import { updatedAt } from "./columns";

/** The hosted customer portal's configuration of an account (none: the defaults of lib/portal/schema.ts). */
export const portalConfigurations = pgTable("portal_configurations", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  settings: jsonb("settings").$type<PortalSettings>().notNull(),
  updated: updatedAt(),
});
