import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { accounts, type PostalAddress } from "./accounts";

/** A customer's tax id (Stripe's `tax_ids`, inline): `value` normalized (uppercase, no spaces). */
export type CustomerTaxId = { type: "eu_vat"; value: string };
import { createdAt, id, time, updatedAt } from "./columns";

export const customers = pgTable(
  "customers",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    email: text("email").notNull(),
    name: text("name"),
    address: jsonb("address").$type<PostalAddress>(),
    /** The invoice language (`en`, `fr`, `de`); null: the account's default_locale. */
    preferredLocale: text("preferred_locale"),
    /** The tax rate (`txr_…`) of this customer's invoice lines that name none (before the account's). */
    defaultTaxRate: text("default_tax_rate"),
    /**
     * The customer's default payment method (`pm_…`, attached to them; Stripe's
     * `invoice_settings.default_payment_method`): collection charges it when the subscription or
     * invoice has none of its own. Cleared when that method is detached.
     */
    defaultPaymentMethod: text("default_payment_method"),
    taxIds: jsonb("tax_ids").$type<CustomerTaxId[]>().notNull().default([]),
    /** Extra recipients of the customer's invoice emails, besides `email` (at most 5). */
    invoiceEmails: jsonb("invoice_emails").$type<string[]>().notNull().default([]),
    customFields: jsonb("custom_fields").$type<Record<string, string>>().notNull().default({}),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    /**
     * The customer's balance per currency (lowercase code → atoms; positive: credit the customer
     * has, negative: what they owe). Changed only with a customer_balance_transactions row.
     */
    /**
     * The currency the customer is billed in for recurring billing and checkout (Stripe's
     * `customer.currency`), lowercase; null until set on creation or by their first invoice or
     * subscription. Changes only while nothing is open (lib/customers/currency.ts).
     */
    currency: text("currency"),
    balances: jsonb("balances").$type<Record<string, number>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
    /** Deleted customers are kept for the audit trail and later references, but are not served. */
    deletedAt: time("deleted_at"),
  },
  (t) => [
    index("customers_account_created_idx")
      .on(t.accountId, t.created, t.id)
      .where(sql`${t.deletedAt} is null`),
    // Checkout finds a returning customer by email.
    index("customers_account_email_idx")
      .on(t.accountId, t.email)
      .where(sql`${t.deletedAt} is null`),
    // The list's `q` filter (dashboard search): a case-insensitive prefix of the email or the name.
    index("customers_account_email_prefix_idx")
      .on(t.accountId, sql`lower(email) text_pattern_ops`)
      .where(sql`${t.deletedAt} is null`),
    index("customers_account_name_prefix_idx")
      .on(t.accountId, sql`lower(name) text_pattern_ops`)
      .where(sql`${t.deletedAt} is null`),
    // … and a substring of either (terms of 3 characters or more): trigram indexes (pg_trgm,
    // migration 0022). No account column: GIN takes none without btree_gin, and a term's matches
    // are filtered by account on the few rows the trigrams select.
    index("customers_email_trgm_idx")
      .using("gin", sql`lower(email) gin_trgm_ops`)
      .where(sql`${t.deletedAt} is null`),
    index("customers_name_trgm_idx")
      .using("gin", sql`lower(name) gin_trgm_ops`)
      .where(sql`${t.deletedAt} is null`),
  ],
);
