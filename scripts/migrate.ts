import { migratePostgres } from "@/db/migrate";
import { config } from "@/lib/config";
import { migrationUrl } from "@/lib/deploy";

/**
 * `npm run db:migrate`: idempotent, and safe when two deploys run it at once (db/migrate.ts), so
 * it can be part of every build (`npm run db:migrate && npm run build` on Vercel, vercel.json).
 */
try {
  const url = migrationUrl(config().database);
  if (!url) {
    console.log("DATABASE_URL is not set: the embedded database migrates itself when the app starts.");
  } else {
    await migratePostgres(url);
    console.log("Migrations applied.");
  }
} catch (error) {
  console.error(`Migrations failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
