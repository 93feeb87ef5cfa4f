-- Collection method (issue #37, docs/emails.md): a `send_invoice` invoice is emailed at
-- finalization and waits for the customer's payment, due `days_until_due` days later; a
-- subscription's carries over to its invoices. The emails' one-use link (the portal sign-in link).
ALTER TABLE "invoices" ADD COLUMN "collection_method" text DEFAULT 'charge_automatically' NOT NULL;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "days_until_due" integer;
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "collection_method" text DEFAULT 'charge_automatically' NOT NULL;
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "days_until_due" integer;
--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "link" text;
