import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { invoiceLines, invoices } from "./invoices";

/**
 * A customer's credit grant (lib/credit-grants, docs/billing.md "Credit grants"): an amount of one
 * currency that pays the eligible lines of the customer's invoices at finalization, before the
 * balance. `remainingAtom` is what is left; the CHECK keeps it within 0 … amount whatever the writer.
 */
export const creditGrants = pgTable(
  "credit_grants",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    name: text("name"),
    category: text("category").$type<"paid" | "promotional">().notNull(),
    currency: text("currency").notNull(),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    remainingAtom: bigint("remaining_atom", { mode: "number" }).notNull(),
    /** The meters (`mtr_…`) whose metered lines it pays; null: every line. */
    appliesToMeters: jsonb("applies_to_meters").$type<string[]>(),
    /** Lower first (Stripe's 0–100, default 50). */
    priority: integer("priority").notNull(),
    effectiveAt: time("effective_at").notNull(),
    expiresAt: time("expires_at"),
    status: text("status").$type<"active" | "depleted" | "expired" | "voided">().notNull(),
    voidedAt: time("voided_at"),
    expiredAt: time("expired_at"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("credit_grants_account_idx").on(t.accountId, t.created.desc(), t.id.desc()),
    index("credit_grants_customer_idx").on(t.customerId, t.created.desc(), t.id.desc()),
    index("credit_grants_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'active' and ${t.expiresAt} is not null`),
    check("credit_grants_remaining_within_amount", sql`${t.remainingAtom} >= 0 and ${t.remainingAtom} <= ${t.amountAtom}`),
  ],
);

/**
 * The ledger of what grants paid: one row per (grant, invoice line) a finalization applied. Voiding
 * the invoice gives the credit back (`reinstatedAt`), unless its grant expired or was voided
 * meanwhile. For an active or depleted grant, Σ of its rows not reinstated + its remaining = its amount.
 */
export const creditGrantApplications = pgTable(
  "credit_grant_applications",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    creditGrantId: text("credit_grant_id")
      .notNull()
      .references(() => creditGrants.id),
    customerId: text("customer_id").notNull(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id),
    invoiceLineId: text("invoice_line_id")
      .notNull()
      .references(() => invoiceLines.id),
    currency: text("currency").notNull(),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    created: createdAt(),
    /** When the invoice's void gave this credit back to its grant; null while it stands. */
    reinstatedAt: time("reinstated_at"),
  },
  (t) => [
    index("credit_grant_applications_grant_idx").on(t.creditGrantId, t.created, t.id),
    index("credit_grant_applications_invoice_idx").on(t.invoiceId),
    check("credit_grant_applications_positive", sql`${t.amountAtom} > 0`),
  ],
);
