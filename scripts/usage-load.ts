import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { loadSyntheticUsage } from "@/db/synthetic-usage";
import { config } from "@/lib/config";

// `npm run --silent usage:load -- --account <account id> --events <n> [--days 30]`: n synthetic
// usage events spread over the last `days` days, round-robin over the account's active meters and
// customers, with their hourly aggregates, then ANALYZEd. See db/synthetic-usage.ts.
function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
}

const accountId = option("account");
const count = Number((option("events") ?? "").replaceAll("_", ""));
const days = Number(option("days") ?? 30);
if (!accountId || !Number.isInteger(count) || count <= 0 || !(days > 0)) {
  console.error("Usage: npm run --silent usage:load -- --account <account id> --events <n> [--days 30]");
  process.exit(1);
}
const { databaseUrl } = config();
if (!databaseUrl) {
  console.error("usage:load needs PostgreSQL (DATABASE_URL); the embedded database is for demos.");
  process.exit(1);
}

const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const started = performance.now();
try {
  const to = new Date();
  await loadSyntheticUsage(sql, {
    accountId,
    events: count,
    from: new Date(to.getTime() - days * 86_400_000),
    to,
    onProgress: (done) => process.stderr.write(`\r${done.toLocaleString("en")} / ${count.toLocaleString("en")} usage events`),
  });
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write("\n");
  console.log(`Loaded ${count} usage events into ${accountId} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)} events/s).`);
} catch (error) {
  process.stderr.write("\n");
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await sql.end({ timeout: 5 });
}
