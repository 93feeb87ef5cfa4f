-- Payment methods as objects (issue #36 point 3, docs/payments.md "Payment methods"): a card a
-- customer saved at a processor, `pm_…`, detached rather than deleted.
CREATE TABLE "payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"processor" text NOT NULL,
	"processor_reference" text NOT NULL,
	"brand" text,
	"last4" text,
	"exp_month" integer,
	"exp_year" integer,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"detached_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "payment_methods_customer_idx" ON "payment_methods" ("customer_id", "created" DESC, "id" DESC);
--> statement-breakpoint
-- One attached object per method at its processor: attaching it again answers the same object.
CREATE UNIQUE INDEX "payment_methods_attached_unique" ON "payment_methods" ("customer_id", "processor", "processor_reference") WHERE "detached_at" IS NULL;
