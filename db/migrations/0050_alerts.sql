-- Alerts (issue #38 point 3, docs/usage-billing.md "Alerts"): usage, spend and credit-balance
-- thresholds per customer and period; marks of customers to evaluate; one trigger row per
-- (alert, customer, period), inserted with its `alert.triggered` event.
CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"type" text NOT NULL,
	"title" text,
	"meter_id" text,
	"customer_id" text,
	"threshold" bigint,
	"threshold_atom" bigint,
	"below_atom" bigint,
	"currency" text,
	"status" text NOT NULL,
	"created" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "alerts_account_idx" ON "alerts" ("account_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "alerts_active_idx" ON "alerts" ("account_id", "customer_id") WHERE "status" = 'active';
--> statement-breakpoint
CREATE TABLE "alert_marks" (
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"customer_id" text NOT NULL,
	"seq" bigint DEFAULT 1 NOT NULL,
	"marked_at" timestamp (3) with time zone NOT NULL,
	PRIMARY KEY ("account_id", "customer_id")
);
--> statement-breakpoint
CREATE INDEX "alert_marks_due_idx" ON "alert_marks" ("marked_at");
--> statement-breakpoint
CREATE TABLE "alert_triggers" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"alert_id" text NOT NULL REFERENCES "alerts"("id"),
	"customer_id" text NOT NULL,
	"period_start" timestamp (3) with time zone NOT NULL,
	"period_end" timestamp (3) with time zone NOT NULL,
	"value" bigint NOT NULL,
	"created" timestamp (3) with time zone NOT NULL,
	"resolved_at" timestamp (3) with time zone
);
--> statement-breakpoint
-- Once per (alert, customer, period), however many evaluators run at once.
CREATE UNIQUE INDEX "alert_triggers_once_idx" ON "alert_triggers" ("alert_id", "customer_id", "period_start");
--> statement-breakpoint
CREATE INDEX "alert_triggers_account_idx" ON "alert_triggers" ("account_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "alert_triggers_customer_idx" ON "alert_triggers" ("account_id", "customer_id", "created", "id");
--> statement-breakpoint
CREATE INDEX "alert_triggers_unresolved_idx" ON "alert_triggers" ("account_id", "period_end") WHERE "resolved_at" IS NULL;
