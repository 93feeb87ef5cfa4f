import { eq, sql, type SQL } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts } from "@/db/schema";

/**
 * How long after a period ends its usage events are still accepted and counted in that period's
 * invoice (`accounts.usage_grace_seconds`, default 3600). The one reader of the setting.
 */
export async function usageGraceSeconds(accountId: string, executor?: Executor): Promise<number> {
  const db = executor ?? (await getDb());
  const [row] = await db.select({ grace: accounts.usageGraceSeconds }).from(accounts).where(eq(accounts.id, accountId));
  return row?.grace ?? 3600;
}

/** The same setting as a scalar subquery, for a statement that reads it with other things. */
export function usageGraceSql(accountId: string): SQL<number> {
  return sql<number>`(select ${accounts.usageGraceSeconds} from ${accounts} where ${accounts.id} = ${accountId})`;
}
