import { migratePostgres } from "@/db/migrate";
import { config } from "@/lib/config";
import { claimEmbedded, embeddedOwner } from "@/lib/embedded";
import { wire } from "@/lib/server/wiring";

/**
 * Readies the database a command-line script works on: PostgreSQL at DATABASE_URL, migrated; or
 * the embedded one, claimed for this process (it has one writer: a running server must stop first).
 */
export async function openScriptDatabase(busyHint = ""): Promise<void> {
  // A script changes data as the server does: its commits announce their deliveries (lib/server/wiring.ts).
  wire();
  const { databaseUrl } = config();
  if (databaseUrl) return migratePostgres(databaseUrl);
  const owner = embeddedOwner();
  if (owner) {
    console.error(`The embedded database is open in the running server (pid ${owner}); stop it first${busyHint}.`);
    process.exit(1);
  }
  claimEmbedded();
}
