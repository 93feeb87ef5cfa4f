-- The API request log (lib/request-logs): partitioned by day on "created". The application creates
-- each day's partition ahead ("request_logs_YYYYMMDD", lib/request-recorder/partitions.ts) and drops
-- whole partitions past REQUEST_LOG_RETENTION_DAYS; the indexes below are made on every partition.
CREATE TABLE "request_logs" (
	"id" text collate "C" NOT NULL,
	"created" timestamp (3) with time zone NOT NULL,
	"account_id" text,
	"livemode" boolean,
	"token_id" text,
	"user_id" text,
	"method" text NOT NULL,
	"operation_id" text,
	"path" text collate "C" NOT NULL,
	"query" text,
	"status" smallint NOT NULL,
	"status_class" smallint NOT NULL,
	"error_code" text,
	"duration_ms" integer NOT NULL,
	"client_address" text,
	"user_agent" text,
	"idempotency_key" text,
	"idempotent_replayed" boolean DEFAULT false NOT NULL,
	"request_headers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"request_body" text,
	"response_body" text
) PARTITION BY RANGE ("created");
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "request_id" text;--> statement-breakpoint
CREATE INDEX "request_logs_account_idx" ON "request_logs" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_status_idx" ON "request_logs" USING btree ("account_id","status","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_status_class_idx" ON "request_logs" USING btree ("account_id","status_class","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_method_idx" ON "request_logs" USING btree ("account_id","method","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_operation_idx" ON "request_logs" USING btree ("account_id","operation_id","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_token_idx" ON "request_logs" USING btree ("account_id","token_id","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_path_idx" ON "request_logs" USING btree ("account_id","path","id");--> statement-breakpoint
CREATE INDEX "request_logs_account_idempotency_idx" ON "request_logs" USING btree ("account_id","idempotency_key","id") WHERE "request_logs"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "request_logs_id_idx" ON "request_logs" USING btree ("id");--> statement-breakpoint
CREATE INDEX "events_account_request_idx" ON "events" USING btree ("account_id","request_id") WHERE "events"."request_id" is not null;