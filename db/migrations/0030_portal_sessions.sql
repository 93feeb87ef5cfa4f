CREATE TABLE "portal_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"customer_id" text NOT NULL,
	"return_url" text,
	"flow" jsonb,
	"link_token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"link_used_at" timestamp (3) with time zone,
	"cookie_token_hash" text,
	"last_seen_at" timestamp (3) with time zone,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portal_sessions_link_token_idx" ON "portal_sessions" USING btree ("link_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "portal_sessions_cookie_token_idx" ON "portal_sessions" USING btree ("cookie_token_hash");--> statement-breakpoint
CREATE INDEX "portal_sessions_customer_idx" ON "portal_sessions" USING btree ("customer_id");
