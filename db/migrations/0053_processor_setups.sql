-- A payment method saved in the customer's browser through the processor's SetupIntent
-- (docs/payments.md, "Saving a card with a SetupIntent"): made by the portal, recorded once when
-- the processor says it succeeded (its webhook or the return URL's retrieve, whichever is first).
-- And the card a Stripe-paid checkout saves (docs/payments.md, "Saving the card at checkout").
CREATE TABLE "processor_setups" (
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"processor" text NOT NULL,
	"reference" text NOT NULL,
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"status" text DEFAULT 'open' NOT NULL,
	"payment_method_id" text REFERENCES "payment_methods"("id"),
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "processor_setups_pk" PRIMARY KEY ("account_id", "processor", "reference")
);--> statement-breakpoint
CREATE INDEX "processor_setups_customer_idx" ON "processor_setups" ("customer_id");--> statement-breakpoint
-- A payment-mode checkout that saves the card it is paid with (`payment_intent_data.setup_future_usage`),
-- and the `pm_…` it saved (set once, in the transaction that recorded it).
ALTER TABLE "checkout_sessions" ADD COLUMN "setup_future_usage" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD COLUMN "saved_payment_method_id" text REFERENCES "payment_methods"("id");
