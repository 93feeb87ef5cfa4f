CREATE TYPE "public"."checkout_mode" AS ENUM('payment', 'subscription');--> statement-breakpoint
CREATE TYPE "public"."checkout_status" AS ENUM('open', 'complete', 'expired');--> statement-breakpoint
CREATE TYPE "public"."change_request_status" AS ENUM('open', 'partially_applied', 'applied', 'canceled');--> statement-breakpoint
ALTER TYPE "public"."subscription_status" ADD VALUE 'past_due' BEFORE 'paused';--> statement-breakpoint
CREATE TABLE "checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"mode" "checkout_mode" NOT NULL,
	"status" "checkout_status" NOT NULL,
	"customer_id" text,
	"customer_email" text,
	"currency" text NOT NULL,
	"line_items" jsonb NOT NULL,
	"amount_total_atom" bigint NOT NULL,
	"success_url" text NOT NULL,
	"cancel_url" text,
	"subscription_id" text,
	"payment_intent_id" text,
	"invoice_id" text,
	"trial_period_days" bigint,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"expired_at" timestamp (3) with time zone,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "subscription_change_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"status" "change_request_status" NOT NULL,
	"steps" jsonb NOT NULL,
	"amount_due_now_atom" bigint NOT NULL,
	"next_invoice_amount_atom" bigint NOT NULL,
	"currency" text NOT NULL,
	"proration_date" timestamp (3) with time zone NOT NULL,
	"invoice_id" text,
	"payment_collected_at" timestamp (3) with time zone,
	"applied_steps" integer DEFAULT 0 NOT NULL,
	"applied_at" timestamp (3) with time zone,
	"last_error" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "platform" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "billing_exempt" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "platform_customer_id" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "clock_offset_ms" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "overdue_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "attempt_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "next_payment_attempt" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "default_payment_method" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "trial_will_end_notified_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "upcoming_invoice_id" text;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checkout_sessions" ADD CONSTRAINT "checkout_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD CONSTRAINT "subscription_change_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD CONSTRAINT "subscription_change_requests_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_sessions_account_idx" ON "checkout_sessions" USING btree ("account_id","created","id");--> statement-breakpoint
CREATE INDEX "checkout_sessions_expiry_idx" ON "checkout_sessions" USING btree ("account_id","expires_at") WHERE "checkout_sessions"."status" = 'open' and "checkout_sessions"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "subscription_change_requests_subscription_idx" ON "subscription_change_requests" USING btree ("subscription_id","created","id");--> statement-breakpoint
CREATE INDEX "customers_account_email_idx" ON "customers" USING btree ("account_id","email") WHERE "customers"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "invoices_due_date_idx" ON "invoices" USING btree ("account_id","due_date") WHERE "invoices"."status" = 'open' and "invoices"."overdue_at" is null and "invoices"."due_date" is not null;--> statement-breakpoint
CREATE INDEX "invoices_next_attempt_idx" ON "invoices" USING btree ("account_id","next_payment_attempt") WHERE "invoices"."status" = 'open' and "invoices"."next_payment_attempt" is not null;--> statement-breakpoint
CREATE INDEX "subscriptions_period_end_idx" ON "subscriptions" USING btree ("account_id","current_period_end") WHERE "subscriptions"."status" <> 'cancelled';--> statement-breakpoint
CREATE INDEX "subscriptions_trial_end_idx" ON "subscriptions" USING btree ("account_id","trial_end") WHERE "subscriptions"."status" = 'trialing' and "subscriptions"."trial_will_end_notified_at" is null;