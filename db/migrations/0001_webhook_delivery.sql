CREATE TYPE "public"."attempt_outcome" AS ENUM('delivered', 'retry', 'failed');--> statement-breakpoint
CREATE TYPE "public"."attempt_trigger" AS ENUM('scheduled', 'manual');--> statement-breakpoint
CREATE TABLE "delivery_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt_number" integer NOT NULL,
	"trigger" "attempt_trigger" NOT NULL,
	"outcome" "attempt_outcome" NOT NULL,
	"url" text NOT NULL,
	"response_status" integer,
	"error" text,
	"response_excerpt" text,
	"duration_ms" integer NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "event_deliveries_due_idx";--> statement-breakpoint
ALTER TABLE "event_deliveries" ADD COLUMN "due_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_event_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."event_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "delivery_attempts" USING btree ("delivery_id","attempt_number");--> statement-breakpoint
CREATE INDEX "event_deliveries_due_idx" ON "event_deliveries" USING btree ("due_at") WHERE "event_deliveries"."due_at" is not null;