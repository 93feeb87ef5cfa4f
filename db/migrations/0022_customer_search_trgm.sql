-- Trigram indexes for the customers' substring search (lib/customers/service.ts). pg_trgm is a trusted
-- extension (PostgreSQL 13+): a database owner may create it; PGlite loads it (lib/embedded.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "customers_email_trgm_idx" ON "customers" USING gin (lower(email) gin_trgm_ops) WHERE "customers"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "customers_name_trgm_idx" ON "customers" USING gin (lower(name) gin_trgm_ops) WHERE "customers"."deleted_at" is null;
