import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time } from "./columns";
import { customers } from "./customers";

/**
 * A customer's saved payment method (lib/payment-methods, docs/payments.md "Payment methods"): a
 * card at a processor, our `pm_…` object around the processor's reference. Detaching keeps the row
 * (`detachedAt`); the list shows attached ones only.
 */
export const paymentMethods = pgTable(
  "payment_methods",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** The registry's name of the processor that holds it: `sandbox` or `stripe`. */
    processor: text("processor").notNull(),
    /** The processor's id of the method (Stripe's `pm_…`; the sandbox token for the sandbox). */
    processorReference: text("processor_reference").notNull(),
    brand: text("brand"),
    last4: text("last4"),
    expMonth: integer("exp_month"),
    expYear: integer("exp_year"),
    /** The merchant's own key-value pairs (Stripe's PaymentMethod `metadata`); not sent to the processor. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    detachedAt: time("detached_at"),
  },
  (t) => [index("payment_methods_customer_idx").on(t.customerId, t.created.desc(), t.id.desc())],
);

/**
 * A payment method being saved in the customer's browser through its processor's setup (Stripe's
 * SetupIntent; lib/payment-methods/setup.ts): made `open` for the customer, `succeeded` once, by
 * whichever of the processor's webhook and the return URL's retrieve comes first, with the
 * `pm_…` it recorded. A setup not made here (another customer's, the merchant's own) is not ours.
 */
export const processorSetups = pgTable(
  "processor_setups",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    processor: text("processor").notNull(),
    /** The processor's id of the setup (Stripe's `seti_…`). */
    reference: text("reference").notNull(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    status: text("status", { enum: ["open", "succeeded"] }).notNull().default("open"),
    paymentMethodId: text("payment_method_id").references(() => paymentMethods.id),
    created: createdAt(),
    completedAt: time("completed_at"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.processor, t.reference], name: "processor_setups_pk" }), index("processor_setups_customer_idx").on(t.customerId)],
);
