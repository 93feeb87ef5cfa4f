-- usage_events is partitioned by month of ts (edited by hand: drizzle does not declare partitions);
-- lib/usage/partitions.ts creates the months as events need them (docs/usage-billing.md).
CREATE TYPE "public"."price_billing_scheme" AS ENUM('per_unit', 'tiered');--> statement-breakpoint
CREATE TYPE "public"."price_tiers_mode" AS ENUM('graduated', 'volume');--> statement-breakpoint
CREATE TYPE "public"."price_usage_type" AS ENUM('licensed', 'metered');--> statement-breakpoint
CREATE TYPE "public"."meter_aggregation" AS ENUM('sum', 'count', 'max', 'last', 'unique_count');--> statement-breakpoint
CREATE TABLE "meters" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"event_name" text NOT NULL,
	"display_name" text NOT NULL,
	"aggregation" "meter_aggregation" NOT NULL,
	"value_key" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_event_keys" (
	"account_id" text NOT NULL,
	"identifier" text NOT NULL,
	"body_hash" text NOT NULL,
	"ts" timestamp (3) with time zone NOT NULL,
	"received" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "usage_event_keys_account_id_identifier_pk" PRIMARY KEY("account_id","identifier")
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"account_id" text NOT NULL,
	"identifier" text NOT NULL,
	"meter_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"ts" timestamp (3) with time zone NOT NULL,
	"value" bigint NOT NULL,
	"unique_value" text,
	"payload" text NOT NULL,
	"received" timestamp (3) with time zone NOT NULL,
	"cancelled_at" timestamp (3) with time zone,
	CONSTRAINT "usage_events_ts_account_id_identifier_pk" PRIMARY KEY("ts","account_id","identifier")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "usage_hourly" (
	"account_id" text NOT NULL,
	"meter_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"sum_value" bigint NOT NULL,
	"event_count" bigint NOT NULL,
	"max_value" bigint,
	"last_ts" timestamp (3) with time zone,
	"last_value" bigint,
	CONSTRAINT "usage_hourly_account_id_meter_id_customer_id_hour_pk" PRIMARY KEY("account_id","meter_id","customer_id","hour")
);
--> statement-breakpoint
CREATE TABLE "usage_hourly_unique" (
	"account_id" text NOT NULL,
	"meter_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"hour" timestamp (3) with time zone NOT NULL,
	"value" text NOT NULL,
	"events" bigint NOT NULL,
	CONSTRAINT "usage_hourly_unique_account_id_meter_id_customer_id_hour_value_pk" PRIMARY KEY("account_id","meter_id","customer_id","hour","value")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "usage_grace_seconds" integer DEFAULT 3600 NOT NULL;--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "usage_type" "price_usage_type" DEFAULT 'licensed' NOT NULL;--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "meter_id" text;--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "billing_scheme" "price_billing_scheme" DEFAULT 'per_unit' NOT NULL;--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "tiers_mode" "price_tiers_mode";--> statement-breakpoint
ALTER TABLE "prices" ADD COLUMN "tiers" jsonb;--> statement-breakpoint
ALTER TABLE "meters" ADD CONSTRAINT "meters_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meters_account_idx" ON "meters" USING btree ("account_id","created","id");--> statement-breakpoint
CREATE UNIQUE INDEX "meters_active_event_name_idx" ON "meters" USING btree ("account_id","event_name") WHERE "meters"."active";--> statement-breakpoint
CREATE INDEX "usage_event_keys_received_idx" ON "usage_event_keys" USING btree ("received");--> statement-breakpoint
CREATE INDEX "usage_events_latest_idx" ON "usage_events" USING btree ("account_id","meter_id","customer_id","ts");--> statement-breakpoint
ALTER TABLE "prices" ADD CONSTRAINT "prices_meter_id_meters_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meters"("id") ON DELETE no action ON UPDATE no action;