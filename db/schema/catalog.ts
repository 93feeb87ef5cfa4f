import { bigint, boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { meters } from "./usage";

export const products = pgTable(
  "products",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    description: text("description"),
    /** Archived products (active = false) keep their prices but are not sold anew. */
    active: boolean("active").notNull().default(true),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [
    index("products_account_idx").on(t.accountId, t.created, t.id),
    index("products_account_active_idx").on(t.accountId, t.active, t.created, t.id),
  ],
);

export const priceTypeEnum = pgEnum("price_type", ["one_time", "recurring"]);
export const recurringIntervalEnum = pgEnum("recurring_interval", ["day", "week", "month", "year"]);
export const usageTypeEnum = pgEnum("price_usage_type", ["licensed", "metered"]);
export const billingSchemeEnum = pgEnum("price_billing_scheme", ["per_unit", "tiered"]);
export const tiersModeEnum = pgEnum("price_tiers_mode", ["graduated", "volume"]);

/** One tier of a tiered price (lib/prices/tiers.ts). */
export type PriceTier = { up_to: number | null; unit_amount_atom: number; flat_amount_atom?: number };
/**
 * A price's amount in another currency than its own (Stripe's `currency_options.<code>`): a
 * per-unit price's `unit_amount_atom`, a tiered price's `tiers` (same `up_to`s), in that
 * currency's atoms. No exchange rate: every amount is the merchant's own.
 */
export type PriceCurrencyOption = {
  unit_amount_atom?: number;
  tiers?: PriceTier[];
  tax_behavior: "inclusive" | "exclusive" | "unspecified";
};

/** Prices are immutable in amount and currency (as Stripe's): change them by creating a new price. */
export const prices = pgTable(
  "prices",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    productId: text("product_id")
      .notNull()
      .references(() => products.id),
    /** Lowercase ISO 4217 code. */
    currency: text("currency").notNull(),
    /** Integer atomic units (cents for USD); never a float. */
    unitAmountAtom: bigint("unit_amount_atom", { mode: "number" }).notNull(),
    type: priceTypeEnum("type").notNull(),
    recurringInterval: recurringIntervalEnum("recurring_interval"),
    recurringIntervalCount: integer("recurring_interval_count"),
    /** metered: billed in arrears from the usage of `meter_id` (docs/usage-billing.md); licensed: by quantity. */
    usageType: usageTypeEnum("usage_type").notNull().default("licensed"),
    meterId: text("meter_id").references(() => meters.id),
    billingScheme: billingSchemeEnum("billing_scheme").notNull().default("per_unit"),
    tiersMode: tiersModeEnum("tiers_mode"),
    tiers: jsonb("tiers").$type<PriceTier[]>(),
    /** Lowercase ISO 4217 code → the price in that currency; never the price's own `currency`. */
    currencyOptions: jsonb("currency_options").$type<Record<string, PriceCurrencyOption>>().notNull().default({}),
    nickname: text("nickname"),
    active: boolean("active").notNull().default(true),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [
    index("prices_account_idx").on(t.accountId, t.created, t.id),
    index("prices_product_idx").on(t.productId, t.created, t.id),
    index("prices_account_active_idx").on(t.accountId, t.active, t.created, t.id),
    index("prices_account_type_idx").on(t.accountId, t.type, t.created, t.id),
  ],
);
