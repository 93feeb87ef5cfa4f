import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, updatedAt } from "./columns";

/**
 * Tax rates (Stripe's TaxRate). The percentage is an integer: the percentage × 10 000
 * (19 % = 190 000), fixed once created, like `inclusive` (lib/tax-rates/compute.ts).
 * Archived rates (`active` false) stay on the invoices and subscriptions that use them.
 */
export const taxRates = pgTable(
  "tax_rates",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    displayName: text("display_name").notNull(),
    description: text("description"),
    percentageE4: integer("percentage_e4").notNull(),
    inclusive: boolean("inclusive").notNull(),
    country: text("country"),
    jurisdiction: text("jurisdiction"),
    active: boolean("active").notNull().default(true),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [index("tax_rates_account_idx").on(t.accountId, t.created, t.id)],
);
