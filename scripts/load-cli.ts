import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { config } from "@/lib/config";

type Sql = ReturnType<typeof postgres>;
export type LoadWindow = { accountId: string; events: number; from: Date; to: Date; onProgress: (done: number) => void };

/**
 * The command line of the synthetic loaders (`events:load`, `usage:load`):
 * `--account <account id> --events <n> [--days <d>]` against DATABASE_URL, with progress and the
 * rate printed. `load` writes the rows (and ends with ANALYZE).
 */
export async function runLoader(script: string, noun: string, defaultDays: number, load: (sql: Sql, window: LoadWindow) => Promise<unknown>): Promise<void> {
  const option = (name: string) => {
    const index = process.argv.indexOf(`--${name}`);
    return index < 0 ? undefined : process.argv[index + 1];
  };
  const accountId = option("account");
  const count = Number((option("events") ?? "").replaceAll("_", ""));
  const days = Number(option("days") ?? defaultDays);
  if (!accountId || !Number.isInteger(count) || count <= 0 || !(days > 0)) {
    console.error(`Usage: npm run --silent ${script} -- --account <account id> --events <n> [--days ${defaultDays}]`);
    process.exit(1);
  }
  const { databaseUrl } = config();
  if (!databaseUrl) {
    console.error(`${script} needs PostgreSQL (DATABASE_URL); the embedded database is for demos.`);
    process.exit(1);
  }
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const started = performance.now();
  try {
    const to = new Date();
    await load(sql, {
      accountId,
      events: count,
      from: new Date(to.getTime() - days * 86_400_000),
      to,
      onProgress: (done) => process.stderr.write(`\r${done.toLocaleString("en")} / ${count.toLocaleString("en")} ${noun}`),
    });
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write("\n");
    console.log(`Loaded ${count} ${noun} into ${accountId} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)} events/s).`);
  } catch (error) {
    process.stderr.write("\n");
    console.error((error as Error).message);
    process.exitCode = 1;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
