ALTER TABLE "subscription_items" ADD COLUMN "tax_rate_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;
