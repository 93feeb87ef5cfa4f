import { closeDb, getDb } from "@/db/client";
import { migratePostgres } from "@/db/migrate";
import { config } from "@/lib/config";
import { claimEmbedded, embeddedOwner, saveEmbeddedCredentials } from "@/lib/embedded";
import { describeSeed, seedDemo } from "@/lib/seed";

// `npm run seed [-- --json]`: the demo organization, accounts, user and fresh tokens.
// With --json, stdout carries exactly one JSON object and nothing else.
const json = process.argv.includes("--json");
const { databaseUrl } = config();

if (databaseUrl) {
  await migratePostgres(databaseUrl);
} else {
  const owner = embeddedOwner();
  if (owner) {
    console.error(
      `The embedded database is open in the running server (pid ${owner}); stop it first, or use its printed login.`,
    );
    process.exit(1);
  }
  claimEmbedded();
}
const result = await seedDemo(await getDb());
if (!databaseUrl) saveEmbeddedCredentials(result);
await closeDb();

if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
else console.log(describeSeed(result, `http://localhost:${process.env.PORT ?? 3000}`));
