CREATE TABLE "event_counts" (
	"account_id" text NOT NULL,
	"dimension" text NOT NULL,
	"value" text NOT NULL,
	"day" date NOT NULL,
	"shard" smallint NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "event_counts_account_id_dimension_value_day_shard_pk" PRIMARY KEY("account_id","dimension","value","day","shard")
);
--> statement-breakpoint
DROP INDEX "api_tokens_account_idx";--> statement-breakpoint
DROP INDEX "event_deliveries_endpoint_idx";--> statement-breakpoint
DROP INDEX "payments_intent_idx";--> statement-breakpoint
DROP INDEX "refunds_payment_idx";--> statement-breakpoint
DROP INDEX "invoices_customer_idx";--> statement-breakpoint
DROP INDEX "subscriptions_customer_idx";--> statement-breakpoint
ALTER TABLE "event_counts" ADD CONSTRAINT "event_counts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_deliveries_endpoint_status_idx" ON "event_deliveries" USING btree ("webhook_endpoint_id","status","created","id");--> statement-breakpoint
CREATE INDEX "payment_intents_account_status_idx" ON "payment_intents" USING btree ("account_id","status","created","id");--> statement-breakpoint
CREATE INDEX "payment_intents_customer_idx" ON "payment_intents" USING btree ("customer_id","created","id");--> statement-breakpoint
CREATE INDEX "invoices_account_status_idx" ON "invoices" USING btree ("account_id","status","created","id");--> statement-breakpoint
CREATE INDEX "subscriptions_account_status_idx" ON "subscriptions" USING btree ("account_id","status","created","id");--> statement-breakpoint
CREATE INDEX "checkout_sessions_account_status_idx" ON "checkout_sessions" USING btree ("account_id","status","created","id");--> statement-breakpoint
CREATE INDEX "checkout_sessions_customer_idx" ON "checkout_sessions" USING btree ("customer_id","created","id");--> statement-breakpoint
CREATE INDEX "api_tokens_account_idx" ON "api_tokens" USING btree ("account_id","created","id");--> statement-breakpoint
CREATE INDEX "event_deliveries_endpoint_idx" ON "event_deliveries" USING btree ("webhook_endpoint_id","created","id");--> statement-breakpoint
CREATE INDEX "payments_intent_idx" ON "payments" USING btree ("payment_intent_id","created","id");--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "refunds" USING btree ("payment_id","created","id");--> statement-breakpoint
CREATE INDEX "invoices_customer_idx" ON "invoices" USING btree ("customer_id","created","id");--> statement-breakpoint
CREATE INDEX "subscriptions_customer_idx" ON "subscriptions" USING btree ("customer_id","created","id");