-- A metered invoice line's quantity is the period's aggregated usage, which may pass 2^31 - 1.
ALTER TABLE "invoice_lines" ALTER COLUMN "quantity" SET DATA TYPE bigint;--> statement-breakpoint
-- A metered item added or switched to mid-period bills usage from this instant (null: its period start).
ALTER TABLE "subscription_items" ADD COLUMN "usage_since" timestamp (3) with time zone;--> statement-breakpoint
CREATE TABLE "subscription_usage_segments" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"account_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"subscription_item_id" text NOT NULL,
	"price_id" text NOT NULL,
	"tax_rate_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"start" timestamp (3) with time zone NOT NULL,
	"end" timestamp (3) with time zone NOT NULL,
	"settled_at" timestamp (3) with time zone,
	"invoice_id" text,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "subscription_usage_segments" ADD CONSTRAINT "subscription_usage_segments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_usage_segments" ADD CONSTRAINT "subscription_usage_segments_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_usage_segments" ADD CONSTRAINT "subscription_usage_segments_price_id_prices_id_fk" FOREIGN KEY ("price_id") REFERENCES "public"."prices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_usage_segments" ADD CONSTRAINT "subscription_usage_segments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subscription_usage_segments_open_idx" ON "subscription_usage_segments" USING btree ("subscription_id","start") WHERE "subscription_usage_segments"."settled_at" is null;
