-- The account's brand colour (issue #37, docs/emails.md): the accent of the emails sent to its
-- customers, `#RRGGBB`; null keeps the service's own.
ALTER TABLE "accounts" ADD COLUMN "brand_color" text;
