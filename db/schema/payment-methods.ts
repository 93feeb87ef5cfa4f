import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
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
    created: createdAt(),
    detachedAt: time("detached_at"),
  },
  (t) => [index("payment_methods_customer_idx").on(t.customerId, t.created.desc(), t.id.desc())],
);
