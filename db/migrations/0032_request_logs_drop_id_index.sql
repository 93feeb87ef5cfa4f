-- Every read of the request log names its account, so (account_id, id) serves a lookup by id; one
-- index fewer for each logged request to maintain.
DROP INDEX IF EXISTS "request_logs_id_idx";
