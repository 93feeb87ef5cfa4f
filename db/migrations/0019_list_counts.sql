CREATE TABLE "list_count_deltas" (
	"scope_id" text NOT NULL,
	"list" text NOT NULL,
	"key" text NOT NULL,
	"day" date NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "list_counts" (
	"scope_id" text NOT NULL,
	"list" text NOT NULL,
	"key" text NOT NULL,
	"day" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "list_counts_scope_id_list_key_day_pk" PRIMARY KEY("scope_id","list","key","day")
);
--> statement-breakpoint
CREATE INDEX "list_count_deltas_key_idx" ON "list_count_deltas" USING btree ("scope_id","list","key","day");--> statement-breakpoint
CREATE INDEX "prices_account_active_idx" ON "prices" USING btree ("account_id","active","created","id");--> statement-breakpoint
CREATE INDEX "prices_account_type_idx" ON "prices" USING btree ("account_id","type","created","id");--> statement-breakpoint
CREATE INDEX "products_account_active_idx" ON "products" USING btree ("account_id","active","created","id");