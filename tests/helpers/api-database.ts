import postgres from "postgres";
import { afterAll, inject } from "vitest";

/**
 * A connection of the calling file's own to the api project's database, for reading what the app
 * stored that no API answers (processor_events: Stripe's webhooks as received and applied); ended
 * after the file's tests. postgres() connects at the first query, so calling this at the top of a
 * file opens nothing before a test asks.
 */
export function apiDatabase(): postgres.Sql {
  const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
  afterAll(async () => {
    await sql.end();
  });
  return sql;
}
