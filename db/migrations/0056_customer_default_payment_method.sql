-- The customer's default payment method (Stripe's `invoice_settings.default_payment_method`):
-- what collection charges when a subscription or invoice has no method of its own. No foreign
-- key: payment_methods already references customers (a cycle), and detaching clears it in the
-- same transaction (lib/payment-methods/service.ts).
ALTER TABLE "customers" ADD COLUMN "default_payment_method" text;
--> statement-breakpoint
-- The merchant's own key-value pairs on a saved method (Stripe's PaymentMethod `metadata`).
ALTER TABLE "payment_methods" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;
