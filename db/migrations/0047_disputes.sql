-- Disputes as objects (issue #36 point 6, docs/payments.md "Disputes"): a payment disputed at the
-- processor, `dp_…` around the processor's dispute (Stripe's `du_…`), one row per processor dispute.
CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"payment_id" text NOT NULL REFERENCES "payments"("id"),
	"payment_intent_id" text NOT NULL REFERENCES "payment_intents"("id"),
	"processor" text NOT NULL,
	"processor_reference" text NOT NULL,
	"amount_atom" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"evidence_due_by" timestamp (3) with time zone,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "disputes_account_idx" ON "disputes" ("account_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "disputes_payment_idx" ON "disputes" ("payment_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "disputes_payment_intent_idx" ON "disputes" ("payment_intent_id", "created", "id");
--> statement-breakpoint
-- The processor's dispute is ours once: its webhooks, duplicated or reordered, find this row.
CREATE UNIQUE INDEX "disputes_processor_reference_unique" ON "disputes" ("account_id", "processor", "processor_reference");
