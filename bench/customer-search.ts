/**
 * Benchmark: the customers' search (`GET /api/customers?q=`) at 1 M customers in one account,
 * over HTTP against `next start` (run `npm run build` first).
 *
 *   npm run bench:search -- [--customers 1000000] [--requests 400]
 *
 * Loads `--customers` synthetic customers (db/synthetic-objects.ts: 64 first names × 1,024
 * surnames, 997 email domains) into one account and 10 % as many into a second one as noise,
 * `vacuum analyze`, then prints p50/p99 at 2 connections of a prefix term (the `c<g>` email
 * prefix bench/lists.ts measures), a surname (a substring in the middle of names and emails),
 * an email domain fragment, a common first name (a prefix of ~1 in 64 names), and a two-character
 * prefix (the prefix-only path), beside the floor (GET /api/health) of the same run. Prints figures
 * only; asserts nothing. Uses a fresh database (dropped at the end).
 */
import "./limits";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, load, log, option, seeded, type Latency } from "./http";
import { performance } from "node:perf_hooks";
import { FIRST_NAMES, loadSyntheticObjects, SURNAME_ENDINGS, SURNAME_ROOTS } from "@/db/synthetic-objects";
import { newId } from "@/lib/ids";
import { startApp } from "@/tests/helpers/server";

const CUSTOMERS = Number(option("customers", "1000000").replaceAll("_", ""));
const REQUESTS = Number(option("requests", "400"));
const MAIN = newId("account");
const NOISE = newId("account");

const { random, pick } = seeded(23);
const SURNAMES = SURNAME_ROOTS.flatMap((root) => SURNAME_ENDINGS.map((ending) => `${root}${ending}`));

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_search");
  try {
    const { token } = await benchAccounts(sql, MAIN, NOISE);
    console.log(`Customer search benchmark, ${new Date().toISOString()}: ${CUSTOMERS.toLocaleString("en")} customers (+10 % noise); ${REQUESTS} requests per row at 2 connections.`);
    const started = performance.now();
    const to = new Date(Date.now() - 86_400_000);
    const from = new Date(to.getTime() - 365 * 86_400_000);
    await loadSyntheticObjects(sql, { accountId: MAIN, kind: "customers", count: CUSTOMERS, from, to });
    await loadSyntheticObjects(sql, { accountId: NOISE, kind: "customers", count: CUSTOMERS / 10, from, to });
    await sql`vacuum analyze customers`;
    log(`loaded and vacuumed in ${elapsed(started)}`);
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const path = `/api/${MAIN}/customers`;
    const q = (term: string) => `${path}?q=${encodeURIComponent(term)}`;

    const rows: [string, () => string][] = [
      ["floor: GET /api/health", () => "/api/health"],
      ["prefix: email `c<3 digits>` (~1,100 matches)", () => q(`c${100 + Math.floor(random() * 900)}`)],
      ["substring: a surname, `lovelace` (~1,000 matches)", () => q(pick(SURNAMES).toLowerCase())],
      ["substring: email domain `mail<n>.example` (~1,000)", () => q(`mail${Math.floor(random() * 997)}.example`)],
      ["prefix: a first name, `Grace` (~15,600 matches)", () => q(pick(FIRST_NAMES))],
      ["prefix, 2 letters of a first name (prefix path)", () => q(pick(FIRST_NAMES).slice(0, 2))],
    ];
    const results: [string, Latency, number][] = [];
    for (const [name, next] of rows) {
      const check = await fetch(`${base}${next()}`, { headers: { authorization: `Bearer ${token}` } });
      if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`);
      const total = ((await check.json()) as { total?: number }).total ?? 0;
      await load(base, token, next, { connections: 2, amount: 40 });
      const result = await load(base, token, next, { connections: 2, amount: REQUESTS });
      results.push([name, result, total]);
      log(`${name.padEnd(52)} p50 ${String(result.p50).padStart(4)} ms  p99 ${String(result.p99).padStart(4)} ms  (one sample: ${total} matches)${result.errors ? `  (${result.errors} errors)` : ""}`);
    }
    console.log("\n| request | p50 ms | p99 ms |\n|---|---|---|");
    for (const [name, result] of results) console.log(`| ${name} | ${result.p50} | **${result.p99}** |`);
  } finally {
    await cleanUp();
  }
}

await main();
