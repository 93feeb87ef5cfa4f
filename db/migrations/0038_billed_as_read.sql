-- What the merchant and the customer read equals what is billed (issue #42, point 3; docs/decisions.md).
-- A change request's totals: the previewed invoices' totals, after the discount and the taxes
-- (null on requests made before they were computed, and for the next invoice when nothing renews).
ALTER TABLE "subscription_change_requests" ADD COLUMN "amount_due_now_total_atom" bigint;
--> statement-breakpoint
ALTER TABLE "subscription_change_requests" ADD COLUMN "next_invoice_total_atom" bigint;
--> statement-breakpoint
-- The paid version of an invoice's PDF: its SHA-256, fixed in the transaction that marks it paid.
ALTER TABLE "invoices" ADD COLUMN "paid_pdf_sha256" text;
--> statement-breakpoint
-- The period a line bills (a metered line: the usage's range); null: the invoice's own period.
ALTER TABLE "invoice_lines" ADD COLUMN "period_start" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD COLUMN "period_end" timestamp (3) with time zone;
--> statement-breakpoint
-- The credit note's layout: 1 as issued before the parties' addresses were printed (its bytes, and so
-- its pdf_sha256, never change), 2 since.
ALTER TABLE "credit_notes" ADD COLUMN "pdf_layout" smallint DEFAULT 1 NOT NULL;
