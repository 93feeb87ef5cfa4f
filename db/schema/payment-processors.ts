import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, time, updatedAt } from "./columns";
import { customers } from "./customers";

/**
 * An account's connected payment processor (lib/payments/processors): at most one per account.
 * Secrets are encrypted at rest (lib/secrets.ts) and never leave the service; the
 * dashboard and the API show `secretKeyLast4` only.
 */
export const paymentProcessors = pgTable("payment_processors", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  /** The registry's name of the processor (lib/payments/processors/registry.ts): `stripe`. */
  processor: text("processor").notNull(),
  /** The processor's own id of the merchant's account (Stripe's `acct_…`). */
  processorAccount: text("processor_account").notNull(),
  /** Whether the keys are live keys (they always match the account's livemode). */
  livemode: boolean("livemode").notNull(),
  secretKeyEncrypted: text("secret_key_encrypted").notNull(),
  secretKeyLast4: text("secret_key_last4").notNull(),
  publishableKey: text("publishable_key").notNull(),
  /** The webhook endpoint the service created at the processor, and its signing secret. */
  webhookEndpointId: text("webhook_endpoint_id").notNull(),
  webhookSecretEncrypted: text("webhook_secret_encrypted").notNull(),
  created: createdAt(),
  updated: updatedAt(),
});

/** A customer's counterpart at a processor (Stripe's `cus_…`), made on first use. */
export const processorCustomers = pgTable(
  "processor_customers",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    processor: text("processor").notNull(),
    reference: text("reference").notNull(),
    created: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.customerId, t.processor] })],
);

/**
 * An event a processor sent to `POST /api/processors/{processor}/{account_id}`, stored before it
 * is answered (unique by the processor's event id: a redelivery is a no-op) and applied by a job.
 */
export const processorEvents = pgTable(
  "processor_events",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    processor: text("processor").notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    /** The processor's id of the object the event is about (a PaymentIntent's `pi_…`). */
    objectReference: text("object_reference"),
    payload: jsonb("payload").$type<unknown>().notNull(),
    /** pending → applied, or failed (with `error`) after its attempts. */
    status: text("status", { enum: ["pending", "applied", "ignored", "failed"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    received: time("received").notNull().defaultNow(),
    appliedAt: time("applied_at"),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.processor, t.eventId] }), index("processor_events_status_idx").on(t.status, t.received)],
);
