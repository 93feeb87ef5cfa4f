-- The default invoice prefix's rule changed (issue #45, docs/rules/invoices.md): an account that
-- already numbered invoices under the derived default keeps the prefix its last number carries, so
-- its sequence does not change prefix mid-way. Accounts that have numbered nothing follow the new rule.
UPDATE "accounts" AS a
SET "invoice_prefix" = (
	SELECT regexp_replace(i."number", '-[0-9]+$', '')
	FROM "invoices" AS i
	WHERE i."account_id" = a."id" AND i."number" IS NOT NULL
	ORDER BY i."number_sequence" DESC
	LIMIT 1
)
WHERE a."invoice_prefix" IS NULL
	AND EXISTS (SELECT 1 FROM "invoices" AS i WHERE i."account_id" = a."id" AND i."number" IS NOT NULL);
--> statement-breakpoint
-- A customer's extra invoice recipients (issue #45, docs/invoices-and-tax.md): besides `email`, at most 5.
ALTER TABLE "customers" ADD COLUMN "invoice_emails" jsonb DEFAULT '[]'::jsonb NOT NULL;
