import { isNull } from "drizzle-orm";
import { closeDb, getDb } from "@/db/client";
import { organizations, users } from "@/db/schema";
import { config } from "@/lib/config";
import { enrollOrganization, issueOperatorToken } from "@/lib/platform/service";
import { openScriptDatabase } from "./database";

// `npm run platform -- token`: a new operator token (secret token of the platform's billing account).
// `npm run platform -- enroll`: finishes the platform enrollment of every organization without a platform customer.
const command = process.argv[2];
await openScriptDatabase();

if (command === "token") {
  const token = await issueOperatorToken();
  // With --json, stdout carries exactly one JSON object.
  if (process.argv.includes("--json")) process.stdout.write(`${JSON.stringify({ account_id: token.accountId, token: token.token })}\n`);
  else console.log(`Operator token for platform account ${token.accountId} (shown once):\n${token.token}`);
} else if (command === "enroll" && !config().platform.billing) {
  console.error("Platform billing is off (PLATFORM_BILLING is not `on`): there is nothing to enroll.");
  process.exitCode = 1;
} else if (command === "enroll") {
  const db = await getDb();
  const pending = await db.select().from(organizations).where(isNull(organizations.platformCustomerId));
  const owners = await db.select().from(users);
  let enrolled = 0;
  for (const organization of pending) {
    if (organization.platform) continue;
    const owner = owners.find((user) => user.organizationId === organization.id);
    await enrollOrganization({ organizationId: organization.id, email: owner?.email ?? `billing+${organization.id}@example.com`, name: organization.name });
    enrolled += 1;
  }
  console.log(`Enrolled ${enrolled} organization(s).`);
} else {
  console.error("Usage: npm run platform -- token | enroll");
  process.exitCode = 1;
}
await closeDb();
