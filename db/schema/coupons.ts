import { bigint, boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";

export const couponDurationEnum = pgEnum("coupon_duration", ["once", "repeating", "forever"]);

/** Exactly one of percent_off_bps and amount_off_atom (+ currency) is set (checked by the service). */
export const coupons = pgTable(
  "coupons",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name"),
    /** Percentage in basis points (2550 = 25.5 %), so discounts are integer arithmetic. */
    percentOffBps: integer("percent_off_bps"),
    amountOffAtom: bigint("amount_off_atom", { mode: "number" }),
    currency: text("currency"),
    /** An amount-off coupon's amount in other currencies (lowercase code → atoms of that currency). */
    currencyOptions: jsonb("currency_options").$type<Record<string, { amount_off_atom: number }>>().notNull().default({}),
    duration: couponDurationEnum("duration").notNull(),
    durationInMonths: integer("duration_in_months"),
    maxRedemptions: integer("max_redemptions"),
    timesRedeemed: integer("times_redeemed").notNull().default(0),
    redeemBy: time("redeem_by"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [index("coupons_account_idx").on(t.accountId, t.created, t.id)],
);

/** A coupon applied to a customer. One active discount per customer. */
export const customerDiscounts = pgTable(
  "customer_discounts",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    couponId: text("coupon_id")
      .notNull()
      .references(() => coupons.id),
    start: time("start").notNull(),
    /** When a `repeating` coupon stops applying, or a `once` coupon ended with the invoice it discounted; null for forever. */
    end: time("end"),
    active: boolean("active").notNull().default(true),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [index("customer_discounts_customer_idx").on(t.customerId, t.created)],
);
