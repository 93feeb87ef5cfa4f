/**
 * `DATABASE_URL=… npm run logs:load -- [--rows 5000000] [--days 30] [--account acc_…]`
 *
 * Bulk-loads synthetic API requests into the request log (db/synthetic-request-logs.ts): into the
 * given account, or into a new organization's account whose secret token it prints, so that
 * `GET /api/request-logs` can be tried at scale. Makes the days' partitions first; ends with ANALYZE.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { loadSyntheticRequestLogs } from "@/db/synthetic-request-logs";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { ensurePartitions, utcDay } from "@/lib/request-recorder/partitions";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("Set DATABASE_URL to the PostgreSQL database to load.");
  process.exit(2);
}
const rows = Number(option("rows", "5000000"));
const days = Number(option("days", "30"));
if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(days) || days < 1 || days > 365) {
  console.error("--rows must be a positive integer and --days 1 to 365.");
  process.exit(2);
}

const sql = postgres(url, { max: 2, onnotice: () => {} });
const db = drizzle(sql);
const started = performance.now();
try {
  let accountId = option("account", "");
  let token: string | null = null;
  if (!accountId) {
    const organization = newId("organization");
    accountId = newId("account");
    await sql`insert into organizations (id, name) values (${organization}, 'Request log load')`;
    await sql`insert into accounts (id, organization_id, name, livemode) values (${accountId}, ${organization}, 'Request log load', true)`;
    token = (await issueToken(db, { accountId, kind: "secret", name: "logs:load" })).token;
  }
  const tokenIds = [newId("apiToken"), newId("apiToken"), newId("apiToken")];
  const now = new Date();
  const partitionDays: string[] = [];
  for (let day = days; day >= -2; day--) partitionDays.push(utcDay(new Date(now.getTime() - day * 86_400_000)));
  await ensurePartitions(db, partitionDays);
  await loadSyntheticRequestLogs(db, { accountId, tokenIds, rows, days, environment: process.env.BILLING_ENV ?? "prod", now }, (message) =>
    console.log(`  ${message}`),
  );
  console.log(`Loaded ${rows.toLocaleString("en")} requests into ${accountId} in ${((performance.now() - started) / 1000).toFixed(0)} s (ANALYZE done).`);
  if (token) console.log(`Secret token of that account: ${token}`);
} finally {
  await sql.end({ timeout: 5 });
}
