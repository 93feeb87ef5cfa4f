import { readFileSync, writeFileSync } from "node:fs";
import { GENERATED_MARKER, listTriggersMigration } from "@/db/list-triggers";

/**
 * `npm run db:list-triggers -- db/migrations/00NN_list_triggers.sql`: writes the migration that
 * makes the list-count triggers and totals those of db/list-declarations.ts into the (empty)
 * migration file `npx drizzle-kit generate --custom --name list_triggers` prepared
 * (docs/ARCHITECTURE.md, "What a list shows").
 */
const file = process.argv[2];
if (!file || !/\.sql$/.test(file)) {
  console.error("Usage: npm run db:list-triggers -- <the migration file drizzle-kit generate --custom prepared>.sql");
  process.exit(1);
}
// What drizzle-kit writes into a custom migration it prepares.
const PLACEHOLDER = "-- Custom SQL migration file, put your code below! --";
const existing = readFileSync(file, "utf8").trim();
if (existing !== "" && existing !== PLACEHOLDER && !existing.startsWith(GENERATED_MARKER)) {
  console.error(`${file} holds a migration of its own: write into a new one.`);
  process.exit(1);
}
writeFileSync(file, listTriggersMigration());
console.log(`Wrote ${file}.`);
