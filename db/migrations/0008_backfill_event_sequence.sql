-- Existing events get their position on their aggregate's timeline, in creation order (created,
-- then the time-ordered id), and each aggregate's counter starts after its last event.
UPDATE "events" AS e
SET "sequence" = numbered.n
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "account_id", "aggregate_id" ORDER BY "created", "id") AS n
  FROM "events"
) AS numbered
WHERE e."id" = numbered."id";
--> statement-breakpoint
INSERT INTO "event_sequences" ("account_id", "aggregate_id", "last_sequence")
SELECT "account_id", "aggregate_id", max("sequence") FROM "events" GROUP BY "account_id", "aggregate_id"
ON CONFLICT ("account_id", "aggregate_id") DO UPDATE SET "last_sequence" = excluded."last_sequence";
