ALTER TABLE "organizations" DROP COLUMN "billing_status";--> statement-breakpoint
ALTER TABLE "organizations" DROP COLUMN "trial_end";--> statement-breakpoint
ALTER TABLE "organizations" DROP COLUMN "subscription_end";--> statement-breakpoint
DROP TYPE "public"."billing_status";