-- Changes at the period end (docs/billing.md, "Changes at the period end"). A change request says
-- when it takes effect; one applied with `period_end` is `scheduled` and listed on its subscription
-- (`pending_changes`) until the renewal applies it or it is cancelled (`cancellation_reason`).
ALTER TYPE "change_request_status" ADD VALUE IF NOT EXISTS 'scheduled';
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "effective" text DEFAULT 'now' NOT NULL;
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "effective_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "cancellation_reason" text;
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "pending_changes" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "plan_change_policy" text DEFAULT 'immediate' NOT NULL;
