-- A subscription checkout with nothing due now (a trial) collects its card with the processor's
-- setup (Stripe's SetupIntent), as Stripe Checkout does: the session remembers which, so the
-- setup's webhook or the return URL finds the session it starts the subscription of.
ALTER TABLE "checkout_sessions" ADD COLUMN "setup_reference" text;
--> statement-breakpoint
CREATE INDEX "checkout_sessions_setup_idx" ON "checkout_sessions" ("account_id", "setup_reference") WHERE "setup_reference" IS NOT NULL;
