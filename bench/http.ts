import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { installTestCertificate } from "@/tests/helpers/tls";

/** Shared by the HTTP benchmarks (bench/api.ts, bench/lists.ts): options, seeded picks, load. */

export function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}

export const log = (message: string) => console.log(`  ${message}`);
/** The middle value of a benchmark's rounds (the upper middle of an even count). */
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
export const elapsed = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

/** A seeded random source, so that two runs pick the same filter values and cursors. */
export function seeded(seed: number): { random: () => number; pick: <T>(values: readonly T[]) => T } {
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  return { random, pick: (values) => values[Math.floor(random() * values.length)]! };
}

export type Latency = { p50: number; p99: number; rps: number; errors: number };

/** `token` is an API token, or `{ cookie }`: a dashboard session. */
export async function load(
  url: string,
  token: string | { cookie: string },
  paths: () => string,
  options: { connections: number; amount?: number; duration?: number; method?: string; body?: () => string },
): Promise<Latency> {
  const result = await autocannon({
    url,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration }),
    headers: { ...(typeof token === "string" ? { authorization: `Bearer ${token}` } : { cookie: token.cookie }), "content-type": "application/json" },
    requests: [
      {
        method: (options.method ?? "GET") as "GET",
        setupRequest: (request) => ({ ...request, path: paths(), ...(options.body ? { body: options.body() } : {}) }),
      },
    ],
  });
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average, errors: result.non2xx + result.errors };
}

/**
 * What every app a benchmark starts inherits: the loopback receivers' test certificate trusted,
 * private networks allowed as webhook targets, fresh secrets.
 */
export function benchEnvironment(): void {
  installTestCertificate();
  Object.assign(process.env, {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  });
}

/**
 * The benchmarks' tenants on a freshly migrated database: one organization with the measured
 * account and a noise account, and a secret token of the measured one.
 */
export async function benchAccounts(sql: postgres.Sql, main: string, noise: string): Promise<{ organization: string; token: string }> {
  const organization = newId("organization");
  await sql`insert into organizations (id, name) values (${organization}, 'Benchmark')`;
  await sql`insert into accounts (id, organization_id, name, livemode) values
    (${main}, ${organization}, 'Measured', true), (${noise}, ${organization}, 'Noise', true)`;
  const token = (await issueToken(drizzle(sql), { accountId: main, kind: "secret", name: "bench" })).token;
  return { organization, token };
}

/**
 * Each row checked once (a 200 or the run stops), warmed for 2 s, then loaded for `seconds` at
 * `connections`; logged with the load average around it, then printed as a table for
 * docs/performance.md. Latency benchmarks beside their floor (bench/entitlements.ts, bench/portal-pages.ts).
 */
export async function latencyRows(
  base: string,
  rows: [name: string, next: () => string, credential: string | { cookie: string }][],
  options: { connections: number; seconds: number },
): Promise<void> {
  const results: [string, Latency][] = [];
  for (const [name, next, credential] of rows) {
    const headers: Record<string, string> = typeof credential === "string" ? { authorization: `Bearer ${credential}` } : { cookie: credential.cookie };
    const check = await fetch(`${base}${next()}`, { headers, redirect: "manual" });
    if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`);
    await load(base, credential, next, { connections: options.connections, duration: 2 });
    const load1 = loadavg()[0]!.toFixed(2);
    const result = await load(base, credential, next, { connections: options.connections, duration: options.seconds });
    results.push([name, result]);
    log(`${name.padEnd(40)} p50 ${result.p50} ms  p99 ${result.p99} ms  ${result.rps.toFixed(0)} req/s  load ${load1}→${loadavg()[0]!.toFixed(2)}${result.errors ? `  (${result.errors} errors)` : ""}`);
  }
  console.log("\n| request | p50 ms | p99 ms | req/s |\n|---|---|---|---|");
  for (const [name, result] of results) console.log(`| ${name} | ${result.p50} | **${result.p99}** | ${result.rps.toFixed(0)} |`);
  console.log(`load average (1, 5, 15 min) at the end: ${loadavg().map((value) => value.toFixed(2)).join(", ")}`);
}

/**
 * A fresh, migrated PostgreSQL database for one benchmark and a connection to it. `closeLater`
 * registers what the run opens (apps, receivers); `cleanUp` closes it all, last opened first, then
 * drops the database. An interrupted run (Ctrl-C) cleans up too.
 */
export async function benchDatabase(name: string): Promise<{
  url: string;
  sql: postgres.Sql;
  closeLater: (close: () => Promise<unknown>) => void;
  cleanUp: () => Promise<void>;
}> {
  const database = await createFreshDatabase(name);
  const sql = postgres(database.url, { max: 4, onnotice: () => {} });
  const closers: (() => Promise<unknown>)[] = [() => database.drop(), () => sql.end({ timeout: 5 })];
  const cleanUp = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));
  await migratePostgres(database.url);
  return { url: database.url, sql, closeLater: (close) => void closers.push(close), cleanUp };
}
