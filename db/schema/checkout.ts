import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { CHECKOUT_STATUSES } from "@/lib/checkout/statuses";

export const checkoutModeEnum = pgEnum("checkout_mode", ["payment", "subscription"]);
export const checkoutStatusEnum = pgEnum("checkout_status", CHECKOUT_STATUSES);

/** One line a checkout session sells: a price and quantity, with its amounts fixed at creation. */
export type CheckoutLineItem = {
  price: string;
  quantity: number;
  description: string | null;
  unit_amount_atom: number;
  amount_atom: number;
};

/** A hosted payment page for one-time prices or a subscription (Stripe's Checkout Session). */
export const checkoutSessions = pgTable(
  "checkout_sessions",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    mode: checkoutModeEnum("mode").notNull(),
    status: checkoutStatusEnum("status").notNull(),
    /** Set at creation when the merchant names one, else at completion (found or created by email). */
    customerId: text("customer_id").references(() => customers.id),
    customerEmail: text("customer_email"),
    currency: text("currency").notNull(),
    lineItems: jsonb("line_items").$type<CheckoutLineItem[]>().notNull(),
    amountTotalAtom: bigint("amount_total_atom", { mode: "number" }).notNull(),
    successUrl: text("success_url").notNull(),
    cancelUrl: text("cancel_url"),
    /** Set by completion: what the session created. */
    subscriptionId: text("subscription_id"),
    paymentIntentId: text("payment_intent_id"),
    invoiceId: text("invoice_id"),
    /** Trial days a subscription session starts with, if any. */
    trialPeriodDays: bigint("trial_period_days", { mode: "number" }),
    /** Payment mode: `off_session` saves the card it is paid with through the processor (`payment_intent_data.setup_future_usage`). */
    setupFutureUsage: text("setup_future_usage", { enum: ["off_session"] }),
    /** The `pm_…` saved from its payment (set once; lib/checkout/on-session.ts). */
    savedPaymentMethodId: text("saved_payment_method_id"),
    /**
     * Subscription mode with nothing due now (a trial): the processor's setup (Stripe's `seti_…`)
     * that collects the card, made at Pay (lib/checkout/on-session.ts). Internal.
     */
    setupReference: text("setup_reference"),
    expiresAt: time("expires_at").notNull(),
    completedAt: time("completed_at"),
    expiredAt: time("expired_at"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [
    index("checkout_sessions_account_idx").on(t.accountId, t.created, t.id),
    index("checkout_sessions_account_status_idx").on(t.accountId, t.status, t.created, t.id),
    index("checkout_sessions_customer_idx").on(t.customerId, t.created, t.id),
    // The clock's due query: open sessions by expiry.
    index("checkout_sessions_expiry_idx")
      .on(t.accountId, t.expiresAt)
      .where(sql`${t.status} = 'open' and ${t.deletedAt} is null`),
    // The setup's webhook finds its session.
    index("checkout_sessions_setup_idx").on(t.accountId, t.setupReference).where(sql`${t.setupReference} is not null`),
  ],
);
