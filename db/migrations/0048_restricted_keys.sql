-- Restricted keys and key hygiene (issue #39 points 1 and 2, docs/api.md "Restricted keys"):
-- `rk_…` keys with a level per resource, an optional expiry and client address ranges; rolling
-- keeps the previous secret's hash until its overlap ends; the last caller's address.
ALTER TYPE "token_kind" ADD VALUE IF NOT EXISTS 'restricted';
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "description" text;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "permissions" jsonb;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "allowed_ips" text[];
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "expires_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "last_used_ip" text;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "previous_token_hash" text UNIQUE;
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "previous_token_expires_at" timestamp (3) with time zone;
