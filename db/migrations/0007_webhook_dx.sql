CREATE TABLE "event_sequences" (
	"account_id" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"last_sequence" integer NOT NULL,
	CONSTRAINT "event_sequences_account_id_aggregate_id_pk" PRIMARY KEY("account_id","aggregate_id")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "sequence" integer;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_ciphertext" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "event_sequences" ADD CONSTRAINT "event_sequences_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "events_aggregate_sequence_idx" ON "events" USING btree ("account_id","aggregate_id","sequence");