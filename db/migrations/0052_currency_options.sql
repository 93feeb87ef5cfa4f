-- One price in many currencies (docs/billing.md, "Currency options"): a price's and an amount-off
-- coupon's amounts in other currencies, and the currency a customer is billed in.
ALTER TABLE "prices" ADD COLUMN "currency_options" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "coupons" ADD COLUMN "currency_options" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "currency" text;
