-- A refund sent to a network processor whose answer was lost, or that never got there (an outage,
-- or a crash after our commit), is re-sent or re-read by the reconciliation job at reconcile_at
-- (issue #36, docs/payments.md "Reconciliation"), as a payment intent's charge is.
ALTER TABLE "refunds" ADD COLUMN "reconcile_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "refunds_reconcile_idx" ON "refunds" ("account_id", "reconcile_at") WHERE "reconcile_at" IS NOT NULL;--> statement-breakpoint
UPDATE "refunds" SET "reconcile_at" = "updated" WHERE "status" = 'pending' AND "processor" IS NOT NULL;
