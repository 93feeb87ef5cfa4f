-- A voided invoice gives back what credit grants paid on it (docs/billing.md, "Credit grants"):
-- the ledger rows stay, marked with when their credit returned to the grant.
ALTER TABLE "credit_grant_applications" ADD COLUMN "reinstated_at" timestamp (3) with time zone;
