-- Rate-limit counters live for a second or a minute: not worth the write-ahead log (a crash
-- empties the table, which only forgives the current window).
ALTER TABLE "rate_limits" SET UNLOGGED;
