-- Transactional email (issue #37, docs/emails.md): the outbox, written in the transaction of the
-- change that causes each message, and the account's email settings.
CREATE TABLE "emails" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"type" text NOT NULL,
	"to" text[] NOT NULL,
	"subject" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"smtp_response" text,
	"customer_id" text,
	"invoice_id" text,
	"credit_note_id" text,
	"event_id" text,
	"cause_key" text NOT NULL,
	"message_id" text NOT NULL,
	"due_at" timestamp (3) with time zone,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp (3) with time zone
);
--> statement-breakpoint
-- One message per cause (event or request, and template): a repeated enqueue is a no-op.
CREATE UNIQUE INDEX "emails_cause_key_idx" ON "emails" USING btree ("account_id","cause_key");
--> statement-breakpoint
CREATE INDEX "emails_due_idx" ON "emails" USING btree ("due_at");
--> statement-breakpoint
CREATE INDEX "emails_account_created_idx" ON "emails" USING btree ("account_id","created","id");
--> statement-breakpoint
CREATE INDEX "emails_account_customer_idx" ON "emails" USING btree ("account_id","customer_id","created");
--> statement-breakpoint
CREATE INDEX "emails_account_invoice_idx" ON "emails" USING btree ("account_id","invoice_id","created");
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_sender_name" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_reply_to" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_hourly_limit" integer DEFAULT 1000 NOT NULL;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_types_disabled" text[] DEFAULT '{}' NOT NULL;
