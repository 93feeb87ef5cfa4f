/**
 * Benchmark: what the rate limiter costs per request, on the built app (`npx next build` first).
 *
 * Starts `next start` on a fresh PostgreSQL database (limits lifted so nothing is refused) and
 * drives three routes with C concurrent keep-alive clients for D seconds each:
 *   floor     GET /api/no-such-path      the unknown-path problem: no limiter, no database
 *   ready     GET /api/health/ready      the per-address limiter and one `select 1`
 *   token     GET /api/customers?limit=1 an authenticated list (token look-up, limiter, one query)
 * "ready" and "token" against "floor" bound what the limiter adds (with their own work). Prints
 * requests per second and p50/p99 latency; asserts nothing.
 *
 *   npx tsx bench/rate-limit.ts [--seconds 8] [--clients 16]        (npm run bench:rate-limit -- …)
 */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { startApp } from "@/tests/helpers/server";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer.`);
  return value;
}

const seconds = option("seconds", 8);
const clients = option("clients", 16);

async function drive(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (response.status >= 500 || response.status === 429) errors++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}

const database = await createFreshDatabase("bench_ratelimit");
try {
  await migratePostgres(database.url);
  process.env.DATABASE_URL = database.url;
  const { newMerchant } = await import("@/tests/helpers/merchant");
  const app = await startApp({
    DATABASE_URL: database.url,
    RATE_LIMIT_PER_SECOND: "100000000",
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
  });
  try {
    const merchant = await newMerchant();
    const auth = { Authorization: `Bearer ${merchant.secret.token}` };
    // Warm-up: compile paths, fill caches and the limiter's first leases.
    for (const path of ["/api/no-such-path", "/api/health/ready", "/api/customers?limit=1"]) await fetch(`${app.baseUrl}${path}`, { headers: auth });
    const rows: Array<[string, Awaited<ReturnType<typeof drive>>]> = [];
    rows.push(["floor  GET /api/no-such-path", await drive(`${app.baseUrl}/api/no-such-path`, {})]);
    rows.push(["ready  GET /api/health/ready", await drive(`${app.baseUrl}/api/health/ready`, {})]);
    rows.push(["token  GET /api/customers?limit=1", await drive(`${app.baseUrl}/api/customers?limit=1`, auth)]);
    console.log(`${clients} clients, ${seconds} s per route`);
    for (const [name, r] of rows) {
      console.log(`${name.padEnd(36)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  ${r.errors} errors  (${(r.rps / rows[0]![1].rps).toFixed(2)}× floor)`);
    }
  } finally {
    await app.stop();
  }
} finally {
  await database.drop();
}
process.exit(0);
