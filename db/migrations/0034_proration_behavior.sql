-- Proration both ways (docs/billing.md, "Proration both ways"). A change request says how it
-- prorates (`proration_behavior`) and fixes at creation the signed proration it applies
-- (`proration_amount_atom`: > 0 charged now, < 0 credited to the customer's balance). Existing
-- requests charged `amount_due_now_atom` and credited nothing: that is their proration.
ALTER TABLE "subscription_change_requests" ADD COLUMN "proration_behavior" text DEFAULT 'create_prorations' NOT NULL;
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "proration_amount_atom" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE "subscription_change_requests" SET "proration_amount_atom" = "amount_due_now_atom";
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "balance_transaction_id" text;
--> statement-breakpoint
ALTER TABLE "customer_balance_transactions" ADD COLUMN "change_request_id" text;
