/**
 * Benchmark: does `rate_limits` stay bounded under a flood of distinct keys (issue #44, "Must work"
 * 2)? On the built app (`npm run build` first), on a fresh PostgreSQL database, with the production
 * purge interval (RATE_LIMIT_PURGE_MS, 60 s by default) and TRUST_PROXY on, C clients send
 * `GET /api/customers` with a bad token, each request from a new address in X-Forwarded-For (a
 * documentation range: the traffic itself only goes to this machine's loopback), so every request
 * writes a key of its own. Every 10 s it counts the table's rows. The table is bounded when the rows
 * stop growing: at most the keys of one purge interval (plus one window) whatever the flood's
 * length, so the largest count of the second half is no larger than about that of the first half.
 * Prints the samples, the keys sent, the largest count per half and the verdict; asserts nothing.
 *
 *   npx tsx bench/rate-limit-flood.ts [--minutes 10] [--clients 4]     (npm run bench:rate-limit-flood -- …)
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { startApp } from "@/tests/helpers/server";
import { option } from "./http";

/** A positive number from `--name`, through the HTTP benchmarks' shared option reader. */
function positive(name: string, fallback: number): number {
  const value = Number(option(name, String(fallback)));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number.`);
  return value;
}

const minutes = positive("minutes", 10);
const clients = positive("clients", 4);
const SAMPLE_MS = 10_000;

/** The n-th address of 2001:db8::/32, the IPv6 documentation prefix: as many distinct ones as a flood needs. */
const address = (n: number) => `2001:db8::${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

const database = await createFreshDatabase("bench_ratelimit_flood");
try {
  await migratePostgres(database.url);
  const app = await startApp({
    DATABASE_URL: database.url,
    TRUST_PROXY: "true",
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
  });
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    let sent = 0;
    let failed = 0;
    const samples: Array<{ atS: number; rows: number; sent: number }> = [];
    const started = performance.now();
    const deadline = started + minutes * 60_000;
    const flood = Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline) {
          const response = await fetch(`${app.baseUrl}/api/customers`, {
            headers: { Authorization: "Bearer st_prod_00000000000000000000000000000000", "X-Forwarded-For": address(sent++) },
          });
          await response.arrayBuffer();
          if (response.status !== 401) failed++;
        }
      }),
    );
    const sampler = (async () => {
      while (performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS)); // the sampling period, not a synchronization
        const [{ n }] = await sql<[{ n: number }]>`select count(*)::int as n from rate_limits`;
        samples.push({ atS: Math.round((performance.now() - started) / 1000), rows: n, sent });
        console.log(`${String(samples.at(-1)!.atS).padStart(5)} s  ${String(n).padStart(8)} rows  ${String(sent).padStart(9)} keys sent`);
      }
    })();
    await Promise.all([flood, sampler]);
    const half = Math.floor(samples.length / 2);
    const firstHalf = Math.max(...samples.slice(0, half).map((s) => s.rows));
    const secondHalf = Math.max(...samples.slice(half).map((s) => s.rows));
    console.log(`${minutes} min, ${clients} clients: ${sent} distinct keys sent (${failed} answers other than 401)`);
    console.log(`largest count: first half ${firstHalf} rows, second half ${secondHalf} rows, end ${samples.at(-1)?.rows ?? 0}`);
    console.log(secondHalf <= firstHalf * 1.2 ? "bounded: the second half holds no more than the first (±20 %)" : "GROWING: the second half holds more than the first");
  } finally {
    await sql.end({ timeout: 5 });
    await app.stop();
  }
} finally {
  await database.drop();
}
process.exit(0);
