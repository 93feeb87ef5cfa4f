import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { time } from "./columns";

/**
 * Rate-limit counters shared by every instance on one database (lib/api/rate-limit.ts), in the
 * shape rate-limiter-flexible's Drizzle store reads and writes: points used in the window that
 * ends at `expire`. Rows are short-lived; the store deletes those expired over an hour ago.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull(),
  expire: time("expire"),
});
