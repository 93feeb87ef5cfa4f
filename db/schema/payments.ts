import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { customers } from "./customers";
import { PAYMENT_INTENT_STATUSES, PAYMENT_STATUSES, type ChargeAttempt } from "@/lib/payments/statuses";

export const paymentIntentStatusEnum = pgEnum("payment_intent_status", PAYMENT_INTENT_STATUSES);
export const captureMethodEnum = pgEnum("capture_method", ["automatic", "manual"]);

/** An attempt to collect an amount from a customer (Stripe's PaymentIntent). */
export const paymentIntents = pgTable(
  "payment_intents",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id").references(() => customers.id),
    /** The invoice it pays, if any (no foreign key: invoices reference it back). */
    invoiceId: text("invoice_id"),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    amountCapturableAtom: bigint("amount_capturable_atom", { mode: "number" }).notNull().default(0),
    amountReceivedAtom: bigint("amount_received_atom", { mode: "number" }).notNull().default(0),
    currency: text("currency").notNull(),
    status: paymentIntentStatusEnum("status").notNull(),
    captureMethod: captureMethodEnum("capture_method").notNull().default("automatic"),
    paymentMethod: text("payment_method"),
    /** The processor that charges it (null: not yet confirmed) and its id there (Stripe's `pi_…`). */
    processor: text("processor"),
    processorReference: text("processor_reference"),
    /** Confirmations sent to the processor so far: the next one's idempotency key (lib/payments/confirm.ts). */
    processorAttempts: integer("processor_attempts").notNull().default(0),
    /** A charge recorded and committed, then sent to a network processor, not yet applied (lib/payments/charge-attempts.ts). */
    chargeInFlight: jsonb("charge_in_flight").$type<ChargeAttempt>(),
    /** When the reconciliation job re-reads it at its processor (in flight, or left processing): lib/payments/reconcile.ts. */
    reconcileAt: time("reconcile_at"),
    lastPaymentError: text("last_payment_error"),
    canceledAt: time("canceled_at"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("payment_intents_account_idx").on(t.accountId, t.created, t.id),
    index("payment_intents_account_status_idx").on(t.accountId, t.status, t.created, t.id),
    index("payment_intents_customer_idx").on(t.customerId, t.created, t.id),
    index("payment_intents_invoice_idx").on(t.invoiceId),
    index("payment_intents_processor_reference_idx").on(t.processorReference),
    index("payment_intents_reconcile_idx").on(t.accountId, t.reconcileAt).where(sql`${t.reconcileAt} IS NOT NULL`),
  ],
);

export const paymentStatusEnum = pgEnum("payment_status", PAYMENT_STATUSES);

/** A charge of a payment method: one per confirmation that moved money (or failed to). */
export const payments = pgTable(
  "payments",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    paymentIntentId: text("payment_intent_id")
      .notNull()
      .references(() => paymentIntents.id),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    amountRefundedAtom: bigint("amount_refunded_atom", { mode: "number" }).notNull().default(0),
    currency: text("currency").notNull(),
    status: paymentStatusEnum("status").notNull(),
    paymentMethod: text("payment_method").notNull(),
    failureMessage: text("failure_message"),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("payments_account_idx").on(t.accountId, t.created, t.id),
    index("payments_intent_idx").on(t.paymentIntentId, t.created, t.id),
  ],
);

export const refundStatusEnum = pgEnum("refund_status", ["pending", "succeeded", "failed"]);

export const refunds = pgTable(
  "refunds",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    status: refundStatusEnum("status").notNull(),
    reason: text("reason"),
    failureReason: text("failure_reason"),
    /** The processor that refunds it (null: the sandbox, settled at once) and its id there (Stripe's `re_…`). */
    processor: text("processor"),
    processorReference: text("processor_reference"),
    /** When the reconciliation job re-sends or re-reads it at its processor (pending there): lib/refunds/reconcile.ts. */
    reconcileAt: time("reconcile_at"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("refunds_reconcile_idx").on(t.accountId, t.reconcileAt).where(sql`${t.reconcileAt} IS NOT NULL`),
    index("refunds_processor_reference_idx").on(t.processorReference).where(sql`${t.processorReference} IS NOT NULL`),
    index("refunds_account_idx").on(t.accountId, t.created, t.id),
    index("refunds_payment_idx").on(t.paymentId, t.created, t.id),
  ],
);
