import { parseArgs } from "node:util";
import { closeDb } from "@/db/client";
import { ServiceError } from "@/lib/errors";
import { createUser } from "@/lib/teams/create-user";
import { openScriptDatabase } from "./database";

// `npm run user:create -- --email a@b.c --password '…' [--name N] [--organization "Acme" | org_…] [--role owner]`
// Creates a dashboard user against DATABASE_URL (or the embedded database), whatever SIGNUP says:
// how the first user of a deployment is made (docs/teams.md).
const usage = "Usage: npm run user:create -- --email EMAIL --password PASSWORD [--name NAME] [--organization NAME|org_…] [--role owner|admin|developer|viewer] [--json]";
let args;
try {
  args = parseArgs({
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      organization: { type: "string" },
      role: { type: "string" },
      json: { type: "boolean" },
    },
  }).values;
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(2);
}
if (!args.email || !args.password) {
  console.error(usage);
  process.exit(2);
}

await openScriptDatabase();

try {
  const user = await createUser({
    email: args.email,
    password: args.password,
    name: args.name,
    organization: args.organization,
    role: args.role,
  });
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ user_id: user.id, email: user.email, role: user.role, organization_id: user.organizationId, new_organization: user.newOrganization })}\n`);
  } else {
    console.log(
      user.newOrganization
        ? `Created organization "${user.organizationName}" (${user.organizationId}) with its live and sandbox accounts.`
        : `Joining organization "${user.organizationName}" (${user.organizationId}).`,
    );
    console.log(`Created user ${user.email} (${user.id}) as ${user.role}. Sign in at /signin.`);
  }
} catch (error) {
  if (!(error instanceof ServiceError)) throw error;
  const fields = (error.extras.errors as { message: string }[] | undefined) ?? [];
  console.error(fields.length ? fields.map((field) => field.message).join("\n") : error.message);
  process.exitCode = 1;
}
await closeDb();
