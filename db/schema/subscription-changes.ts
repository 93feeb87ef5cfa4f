import { bigint, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { subscriptions } from "./subscriptions";
import type { ProrationBehavior } from "@/lib/subscription-changes/statuses";

export const changeRequestStatusEnum = pgEnum("change_request_status", ["open", "partially_applied", "applied", "canceled", "scheduled"]);

/**
 * One step of a change request, in the order it is applied. `state` records progress so that a
 * retried apply resumes at the first step that is not `applied`.
 */
export type ChangeStep = {
  type: "switch_price" | "set_quantity" | "add_item" | "remove_item";
  /** The subscription item (`si_…`) a step acts on; the new item's id once an add_item is applied. */
  item: string | null;
  price: string | null;
  quantity: number | null;
  state: "pending" | "applied";
};

/** A change scheduled for the period end, as its subscription lists it (`pending_changes`). */
export type PendingChange = { change_request: string; steps: ChangeStep[] };

/** A planned change of a subscription's items: previewed, then applied (payment first, then steps). */
export const subscriptionChangeRequests = pgTable(
  "subscription_change_requests",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    status: changeRequestStatusEnum("status").notNull(),
    steps: jsonb("steps").$type<ChangeStep[]>().notNull(),
    /** The preview, fixed at creation: prorated amount owed now for the rest of the period, and the next invoice. */
    amountDueNowAtom: bigint("amount_due_now_atom", { mode: "number" }).notNull(),
    nextInvoiceAmountAtom: bigint("next_invoice_amount_atom", { mode: "number" }).notNull(),
    /** The totals of the invoices previewed with it (discount and taxes included): the proration invoice's, the renewal's (null: none renews; or made before totals existed). */
    amountDueNowTotalAtom: bigint("amount_due_now_total_atom", { mode: "number" }),
    nextInvoiceTotalAtom: bigint("next_invoice_total_atom", { mode: "number" }),
    /** How it prorates (lib/subscription-changes/proration.ts), and the signed proration fixed at creation: > 0 charged now, < 0 credited to the balance. */
    prorationBehavior: text("proration_behavior").$type<ProrationBehavior>().notNull().default("create_prorations"),
    prorationAmountAtom: bigint("proration_amount_atom", { mode: "number" }).notNull().default(0),
    /** The balance transaction that credited a negative proration (written with the last step, once). */
    balanceTransactionId: text("balance_transaction_id"),
    currency: text("currency").notNull(),
    prorationDate: time("proration_date").notNull(),
    /** The proration invoice for `amount_due_now_atom`, from its creation (a failed payment is retried on it). */
    invoiceId: text("invoice_id"),
    /** When that invoice was paid: from then on a retried apply never charges again. */
    paymentCollectedAt: time("payment_collected_at"),
    appliedSteps: integer("applied_steps").notNull().default(0),
    appliedAt: time("applied_at"),
    lastError: text("last_error"),
    /** When it takes effect once applied: `now`, or `period_end` (scheduled for the renewal: lib/subscription-changes/pending.ts). */
    effective: text("effective").$type<"now" | "period_end">().notNull().default("now"),
    /** For `period_end`: the period end it was scheduled for (set when applied). */
    effectiveAt: time("effective_at"),
    /** Why it was canceled: by request, because its subscription ended first, or because its steps no longer applied at the renewal. */
    cancellationReason: text("cancellation_reason").$type<"requested" | "subscription_cancelled" | "no_longer_applies">(),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [index("subscription_change_requests_subscription_idx").on(t.subscriptionId, t.created, t.id)],
);
