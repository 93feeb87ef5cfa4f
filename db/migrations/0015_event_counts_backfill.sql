-- Events written before event_counts existed: count them once, so every total stays exact.
INSERT INTO "event_counts" ("account_id", "dimension", "value", "day", "shard", "count")
SELECT "account_id", d."dimension", d."value", ("created" AT TIME ZONE 'UTC')::date, 0, count(*)
FROM "events"
CROSS JOIN LATERAL (VALUES ('all', ''), ('aggregate_type', "aggregate_type"), ('type', "type")) AS d("dimension", "value")
GROUP BY 1, 2, 3, 4
ON CONFLICT DO NOTHING;
