-- The hourly email limit (lib/emails/send.ts) counts an account's emails with a `sent_at` in the
-- last hour (sent, or reserved by a sender's claim): a range scan of this index, instead of every
-- email the account ever sent.
CREATE INDEX "emails_account_sent_idx" ON "emails" ("account_id", "sent_at");
