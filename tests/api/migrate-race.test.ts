import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "@/db/client";
import { createFreshDatabase } from "../helpers/database";
import { PROJECT_ROOT } from "../helpers/server";

const run = promisify(execFile);

/** Two deploys building at once both run `npm run db:migrate` (vercel.json's build command). */
describe("npm run db:migrate on a racing deploy", () => {
  it("applies every migration exactly once when two migrators start together on a fresh database", async () => {
    const database = await createFreshDatabase("migrate_race");
    try {
      const env = { ...process.env, DATABASE_URL: database.url };
      const migrate = () => run("npm", ["run", "--silent", "db:migrate"], { cwd: PROJECT_ROOT, env });
      const results = await Promise.all([migrate(), migrate(), migrate()]);
      for (const result of results) expect(result.stdout).toContain("Migrations applied.");

      const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
      const sql = postgres(database.url, { max: 1, onnotice: () => {} });
      try {
        const applied = await sql`select hash from drizzle.__drizzle_migrations`;
        expect(applied).toHaveLength(journal.entries.length);
        const tables = await sql`
          select 1 from information_schema.tables where table_schema = 'public' and table_name = 'event_deliveries'`;
        expect(tables).toHaveLength(1);
        // The lock is released with its session: nobody holds it on this database any more. (Other
        // databases' advisory locks, an app's leader lock in a file or run beside this one, are
        // theirs: pg_locks shows the whole server's.)
        const held = await sql`
          select 1 from pg_locks
          where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`;
        expect(held).toHaveLength(0);
      } finally {
        await sql.end();
      }
    } finally {
      await database.drop();
    }
  });
});
