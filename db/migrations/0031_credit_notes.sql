ALTER TABLE "customers" ADD COLUMN "balances" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "pre_payment_credit_notes_amount_atom" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "post_payment_credit_notes_amount_atom" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "starting_balance_atom" bigint;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "ending_balance_atom" bigint;--> statement-breakpoint
CREATE TABLE "credit_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"invoice_id" text NOT NULL REFERENCES "invoices"("id"),
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"number" text NOT NULL,
	"number_sequence" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"type" text NOT NULL,
	"reason" text NOT NULL,
	"memo" text,
	"lines" jsonb NOT NULL,
	"subtotal_atom" bigint NOT NULL,
	"discount_atom" bigint NOT NULL,
	"tax_atom" bigint NOT NULL,
	"total_taxes" jsonb NOT NULL,
	"total_amount_atom" bigint NOT NULL,
	"refund_amount_atom" bigint NOT NULL,
	"credit_amount_atom" bigint NOT NULL,
	"out_of_band_amount_atom" bigint NOT NULL,
	"refund_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"customer_balance_transaction_id" text,
	"pdf_sha256" text,
	"voided_at" timestamp (3) with time zone,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "credit_notes_account_idx" ON "credit_notes" USING btree ("account_id","created","id");--> statement-breakpoint
CREATE INDEX "credit_notes_invoice_idx" ON "credit_notes" USING btree ("invoice_id","created","id");--> statement-breakpoint
CREATE INDEX "credit_notes_customer_idx" ON "credit_notes" USING btree ("customer_id","created","id");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_account_number_sequence_idx" ON "credit_notes" USING btree ("account_id","number_sequence");--> statement-breakpoint
CREATE TABLE "credit_note_number_sequences" (
	"account_id" text PRIMARY KEY NOT NULL REFERENCES "accounts"("id"),
	"last_value" bigint NOT NULL
);--> statement-breakpoint
CREATE TABLE "customer_balance_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"currency" text NOT NULL,
	"amount_atom" bigint NOT NULL,
	"ending_balance_atom" bigint NOT NULL,
	"type" text NOT NULL,
	"description" text,
	"invoice_id" text,
	"credit_note_id" text,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "customer_balance_transactions_customer_idx" ON "customer_balance_transactions" USING btree ("customer_id","created","id");
