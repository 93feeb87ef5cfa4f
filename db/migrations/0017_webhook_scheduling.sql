ALTER TABLE "webhook_endpoints" ADD COLUMN "max_deliveries_per_second" integer;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "rate_next_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "event_deliveries_endpoint_due_idx" ON "event_deliveries" USING btree ("webhook_endpoint_id","due_at") WHERE "event_deliveries"."due_at" is not null;--> statement-breakpoint
CREATE INDEX "event_deliveries_endpoint_attempted_idx" ON "event_deliveries" USING btree ("webhook_endpoint_id","last_attempt_at");--> statement-breakpoint
CREATE INDEX "event_deliveries_delivering_idx" ON "event_deliveries" USING btree ("webhook_endpoint_id","due_at") WHERE "event_deliveries"."status" = 'delivering';