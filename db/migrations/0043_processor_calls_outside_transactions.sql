-- Processor calls outside our transactions (issue #36, docs/payments.md): a charge sent to a
-- network processor is recorded first (charge_in_flight, with its idempotency key) and committed,
-- then sent, then applied; reconcile_at is when the reconciliation job re-reads an intent still
-- in flight or processing. A refund keeps its processor's id, to be settled by its webhook.
ALTER TABLE "payment_intents" ADD COLUMN "charge_in_flight" jsonb;--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "reconcile_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "payment_intents_reconcile_idx" ON "payment_intents" ("account_id", "reconcile_at") WHERE "reconcile_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "processor" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "processor_reference" text;--> statement-breakpoint
CREATE INDEX "refunds_processor_reference_idx" ON "refunds" ("processor_reference") WHERE "processor_reference" IS NOT NULL;
