import { text, timestamp } from "drizzle-orm/pg-core";

/**
 * Column helpers shared by every table, so that identifiers and times look the same everywhere.
 * Identifiers are made by the application (lib/ids.ts): they carry the prefix and environment and
 * are time-ordered, so no database default is involved.
 */
export const id = () => text("id").primaryKey();

/** A time with time zone, always in UTC, with millisecond precision (what JavaScript dates carry). */
export const time = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

export const createdAt = () => time("created").notNull().defaultNow();

export const updatedAt = () => time("updated").notNull().defaultNow();
