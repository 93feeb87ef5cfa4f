import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Database } from "@/db/client";
import { issueToken } from "@/lib/auth/tokens";
import { createOrganization } from "@/lib/organizations/service";
import { createMigratedDatabase } from "./database";

/**
 * A migrated database of its own with one organization and a live secret token: for a test whose
 * app must be the only one working on its data (its delivery driver, its database's settings).
 */
export async function isolatedDatabase(label: string) {
  const fresh = await createMigratedDatabase(label);
  const client = postgres(fresh.url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzle(client) as unknown as Database;
    const organization = await createOrganization(db, { name: label });
    const { token } = await issueToken(db, { accountId: organization.liveAccountId, kind: "secret", name: label });
    return { ...fresh, name: new URL(fresh.url).pathname.slice(1), token, accountId: organization.liveAccountId };
  } finally {
    await client.end();
  }
}
