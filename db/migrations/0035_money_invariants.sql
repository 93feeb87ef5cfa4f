-- The database keeps two money invariants whatever code path writes (issue 42, rule 6;
-- docs/credit-notes-and-balance.md, "Never more than the total"; docs/decisions.md, "Money
-- invariants in the database"):
--   an invoice's issued credit notes sum to at most its total, and its amount due is never below 0.
-- On the invoice row itself two CHECKs; over the credit notes' rows (which a CHECK cannot see) a
-- trigger. The service has always kept both (the billing property tests check them after every
-- step), so existing rows satisfy them; should one not, the first statement names it and the
-- migration stops before changing anything.
DO $do$
declare
  bad text;
begin
  select string_agg(i.id, ', ') into bad from (
    select i.id from invoices i
    where i.due_amount_atom < 0
       or i.pre_payment_credit_notes_amount_atom + i.post_payment_credit_notes_amount_atom > i.total_amount_atom
       or (select coalesce(sum(c.total_amount_atom), 0) from credit_notes c where c.invoice_id = i.id and c.status = 'issued') > i.total_amount_atom
    limit 20
  ) i;
  if bad is not null then
    raise exception 'invoices breaking the money invariants (amount due < 0 or credit notes > total): %', bad;
  end if;
end
$do$;
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_due_amount_non_negative" CHECK ("due_amount_atom" >= 0);
--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_credit_notes_within_total" CHECK ("pre_payment_credit_notes_amount_atom" + "post_payment_credit_notes_amount_atom" <= "total_amount_atom");
--> statement-breakpoint
-- Σ of an invoice's issued credit notes ≤ its total. The invoice row is locked first, so two
-- transactions adding credit notes to one invoice take turns and each sums the other's (a
-- statement in a plpgsql function sees what committed before it, under read committed).
CREATE FUNCTION "credit_notes_within_invoice_total"() RETURNS trigger LANGUAGE plpgsql AS $body$
declare
  invoice_total bigint;
  credited bigint;
  target_invoice text;
begin
  if tg_table_name = 'invoices' then
    target_invoice := new.id;
    invoice_total := new.total_amount_atom;
  else
    target_invoice := new.invoice_id;
    select total_amount_atom into invoice_total from invoices where id = target_invoice for update;
  end if;
  select coalesce(sum(total_amount_atom), 0) into credited from credit_notes where credit_notes.invoice_id = target_invoice and status = 'issued';
  if credited > invoice_total then
    raise exception 'the issued credit notes of invoice % (%) exceed its total (%)', target_invoice, credited, invoice_total
      using errcode = 'check_violation', constraint = 'credit_notes_within_invoice_total', table = tg_table_name;
  end if;
  return null;
end
$body$;
--> statement-breakpoint
CREATE TRIGGER "credit_notes_within_invoice_total" AFTER INSERT OR UPDATE OF "status", "total_amount_atom", "invoice_id" ON "credit_notes"
  FOR EACH ROW WHEN (new.status = 'issued') EXECUTE FUNCTION "credit_notes_within_invoice_total"();
--> statement-breakpoint
CREATE TRIGGER "invoices_total_covers_credit_notes" AFTER UPDATE OF "total_amount_atom" ON "invoices"
  FOR EACH ROW WHEN (new.total_amount_atom < old.total_amount_atom) EXECUTE FUNCTION "credit_notes_within_invoice_total"();
