-- Credit grants (issue #38 point 2, docs/billing.md "Credit grants"): an amount of one currency
-- granted to a customer that pays the eligible lines of its invoices at finalization, before the
-- balance; the ledger of what each grant paid; and on the invoice what credits paid.
CREATE TABLE "credit_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"customer_id" text NOT NULL REFERENCES "customers"("id"),
	"name" text,
	"category" text NOT NULL,
	"currency" text NOT NULL,
	"amount_atom" bigint NOT NULL,
	"remaining_atom" bigint NOT NULL,
	"applies_to_meters" jsonb,
	"priority" integer NOT NULL,
	"effective_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"status" text NOT NULL,
	"voided_at" timestamp (3) with time zone,
	"expired_at" timestamp (3) with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_grants_remaining_within_amount" CHECK ("remaining_atom" >= 0 and "remaining_atom" <= "amount_atom")
);
--> statement-breakpoint
CREATE INDEX "credit_grants_account_idx" ON "credit_grants" ("account_id", "created" DESC, "id" DESC);
--> statement-breakpoint
CREATE INDEX "credit_grants_customer_idx" ON "credit_grants" ("customer_id", "created" DESC, "id" DESC);
--> statement-breakpoint
-- The clock's expiry query: active grants by expiry.
CREATE INDEX "credit_grants_expiry_idx" ON "credit_grants" ("expires_at") WHERE "status" = 'active' and "expires_at" is not null;
--> statement-breakpoint
CREATE TABLE "credit_grant_applications" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"credit_grant_id" text NOT NULL REFERENCES "credit_grants"("id"),
	"customer_id" text NOT NULL,
	"invoice_id" text NOT NULL REFERENCES "invoices"("id"),
	"invoice_line_id" text NOT NULL REFERENCES "invoice_lines"("id"),
	"currency" text NOT NULL,
	"amount_atom" bigint NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_grant_applications_positive" CHECK ("amount_atom" > 0)
);
--> statement-breakpoint
CREATE INDEX "credit_grant_applications_grant_idx" ON "credit_grant_applications" ("credit_grant_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "credit_grant_applications_invoice_idx" ON "credit_grant_applications" ("invoice_id");
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "credits_applied_atom" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "credits_applied" jsonb DEFAULT '[]'::jsonb NOT NULL;
