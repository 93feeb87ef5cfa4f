import { bigint, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { paymentIntents, payments } from "./payments";

/**
 * A payment disputed by the card holder at the processor (lib/disputes, docs/payments.md
 * "Disputes"): our `dp_…` object around the processor's dispute (Stripe's `du_…`), brought to the
 * processor's state by its webhooks (re-read). One row per processor dispute.
 */
export const disputes = pgTable(
  "disputes",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    paymentId: text("payment_id")
      .notNull()
      .references(() => payments.id),
    paymentIntentId: text("payment_intent_id")
      .notNull()
      .references(() => paymentIntents.id),
    /** The registry's name of the processor that reported it (`stripe`). */
    processor: text("processor").notNull(),
    /** The processor's id of the dispute (Stripe's `du_…`). */
    processorReference: text("processor_reference").notNull(),
    amountAtom: bigint("amount_atom", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    reason: text("reason").notNull(),
    /** One of DISPUTE_STATUSES (lib/disputes/statuses.ts); only those are written. */
    status: text("status").notNull(),
    evidenceDueBy: time("evidence_due_by"),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("disputes_account_idx").on(t.accountId, t.created, t.id),
    index("disputes_payment_idx").on(t.paymentId, t.created, t.id),
    index("disputes_payment_intent_idx").on(t.paymentIntentId, t.created, t.id),
    uniqueIndex("disputes_processor_reference_unique").on(t.accountId, t.processor, t.processorReference),
  ],
);
