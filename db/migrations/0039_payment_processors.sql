-- Payment processors (issue #36, docs/payments.md): an account's connected processor, its customers
-- there, the events it sends, and each payment intent's processor and reference.
CREATE TABLE "payment_processors" (
	"account_id" text PRIMARY KEY NOT NULL REFERENCES "accounts"("id"),
	"processor" text NOT NULL,
	"processor_account" text NOT NULL,
	"livemode" boolean NOT NULL,
	"secret_key_encrypted" text NOT NULL,
	"secret_key_last4" text NOT NULL,
	"publishable_key" text NOT NULL,
	"webhook_endpoint_id" text NOT NULL,
	"webhook_secret_encrypted" text NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "processor_customers" (
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"processor" text NOT NULL,
	"reference" text NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "processor_customers_customer_id_processor_pk" PRIMARY KEY("customer_id","processor")
);
--> statement-breakpoint
CREATE TABLE "processor_events" (
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"processor" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"object_reference" text,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"received" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"applied_at" timestamp (3) with time zone,
	CONSTRAINT "processor_events_account_id_processor_event_id_pk" PRIMARY KEY("account_id","processor","event_id")
);
--> statement-breakpoint
CREATE INDEX "processor_events_status_idx" ON "processor_events" USING btree ("status","received");
--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "processor" text;
--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "processor_reference" text;
--> statement-breakpoint
ALTER TABLE "payment_intents" ADD COLUMN "processor_attempts" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX "payment_intents_processor_reference_idx" ON "payment_intents" USING btree ("processor_reference");
