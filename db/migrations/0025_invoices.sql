CREATE TABLE "invoice_number_sequences" (
	"account_id" text PRIMARY KEY NOT NULL,
	"last_value" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tax_rates" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"display_name" text NOT NULL,
	"description" text,
	"percentage_e4" integer NOT NULL,
	"inclusive" boolean NOT NULL,
	"country" text,
	"jurisdiction" text,
	"active" boolean DEFAULT true NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "business_name" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "address" jsonb;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "tax_id" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "invoice_prefix" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "invoice_footer" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "default_locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "default_tax_rate" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "address" jsonb;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "preferred_locale" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "default_tax_rate" text;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "tax_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "tax_rate_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "discount_atom" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "tax_amounts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "number" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "number_sequence" bigint;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "document" jsonb;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "pdf_sha256" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "hosted_token" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_atom" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "total_taxes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "reverse_charge" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_number_sequences" ADD CONSTRAINT "invoice_number_sequences_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tax_rates" ADD CONSTRAINT "tax_rates_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tax_rates_account_idx" ON "tax_rates" USING btree ("account_id","created","id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_account_number_sequence_idx" ON "invoices" USING btree ("account_id","number_sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_hosted_token_idx" ON "invoices" USING btree ("hosted_token");