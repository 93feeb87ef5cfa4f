import { closeDb, getDb } from "@/db/client";
import { config } from "@/lib/config";
import { saveEmbeddedCredentials } from "@/lib/embedded";
import { describeSeed, seedDemo } from "@/lib/seed";
import { openScriptDatabase } from "./database";

// `npm run seed [-- --json]`: the demo organization, accounts, user and fresh tokens.
// With --json, stdout carries exactly one JSON object and nothing else.
const json = process.argv.includes("--json");
const { databaseUrl } = config();

await openScriptDatabase(", or use its printed login");
const result = await seedDemo(await getDb());
if (!databaseUrl) saveEmbeddedCredentials(result);
await closeDb();

if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
else console.log(describeSeed(result, `http://localhost:${process.env.PORT ?? 3000}`));
