/**
 * Benchmark: invoice documents and numbers, on the built app (`npm run build` first).
 *
 * Starts `next start` on a fresh PostgreSQL database and measures, beside a floor measured in the
 * same run (`GET /api/health` with the same concurrency):
 *   pdf       GET /api/invoices/{id}/pdf of a 20-line invoice with three tax rates (two exclusive,
 *             one inclusive, a discount), 4 concurrent clients: p50/p95/p99 (issue 22's bound: p95 ≤ 250 ms)
 *   finalize  500 drafts of one account finalized from 16 concurrent connections: wall time,
 *             finalizations per second, and that the numbers are 1..500 without gap or repeat
 * Prints the figures and the load average (the machine may be shared); asserts only the gapless
 * numbers (a correctness condition, not a timing).
 *
 *   npx tsx bench/invoices.ts [--seconds 10] [--invoices 500]        (npm run bench:invoices -- …)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { startApp } from "@/tests/helpers/server";
import { pool } from "./pool";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer.`);
  return value;
}

const seconds = option("seconds", 10);
const count = option("invoices", 500);

type Stats = { n: number; rps: number; p50: number; p95: number; p99: number; errors: number };

async function drive(url: string, headers: Record<string, string>, clients: number): Promise<Stats> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) errors++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { n: latencies.length, rps: latencies.length / seconds, p50: at(0.5), p95: at(0.95), p99: at(0.99), errors };
}

async function call(base: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as Record<string, unknown> & { id: string; number?: string };
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const database = await createFreshDatabase("bench_invoices");
try {
  await migratePostgres(database.url);
  process.env.DATABASE_URL = database.url;
  const { getDb } = await import("@/db/client");
  const { createOrganization } = await import("@/lib/organizations/service");
  const { issueToken } = await import("@/lib/auth/tokens");
  const app = await startApp({
    DATABASE_URL: database.url,
    RATE_LIMIT_PER_SECOND: "100000000",
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
  });
  try {
    const db = await getDb();
    const organization = await createOrganization(db, { name: "Invoices bench" });
    const { token } = await issueToken(db, { accountId: organization.liveAccountId, kind: "secret", name: "bench" });
    const api = (method: string, path: string, body?: unknown) => call(app.baseUrl, token, method, path, body);
    await api("POST", "/account-settings", {
      business_name: "Bench GmbH",
      address: { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" },
      tax_id: "DE136695976",
      invoice_footer: "IBAN DE89 3704 0044 0532 0130 00",
    });
    const rates = [
      await api("POST", "/tax-rates", { display_name: "USt.", percentage: 19, inclusive: false }),
      await api("POST", "/tax-rates", { display_name: "USt. ermäßigt", percentage: 7, inclusive: true }),
      await api("POST", "/tax-rates", { display_name: "Kurtaxe", percentage: 2.5, inclusive: false }),
    ];
    const customer = await api("POST", "/customers", { email: "bench@example.com", name: "Bench Kunde", preferred_locale: "de" });
    const coupon = await api("POST", "/coupons", { percent_off: 10, duration: "forever" });
    await api("POST", `/customers/${customer.id}/discount`, { coupon: coupon.id });
    const product = await api("POST", "/products", { name: "Beratung" });
    const price = await api("POST", "/prices", { product: product.id, currency: "eur", unit_amount_atom: 12_345, type: "one_time", nickname: "Stunde" });
    const lines = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? { price: price.id, quantity: i + 1, tax_rates: [rates[i % 3]!.id] }
        : { unit_amount_atom: 999 + i, quantity: 2, description: `Leistung ${i + 1}`, tax_rates: [rates[i % 3]!.id] },
    );
    const big = await api("POST", "/invoices", { customer: customer.id, currency: "eur", lines });
    await api("POST", `/invoices/${big.id}/finalize`);

    // Warm-up: compile paths, load the fonts.
    for (let i = 0; i < 5; i++) {
      await fetch(`${app.baseUrl}/api/health`);
      await (await fetch(`${app.baseUrl}/api/invoices/${big.id}/pdf`, { headers: { Authorization: `Bearer ${token}` } })).arrayBuffer();
    }
    const floor = await drive(`${app.baseUrl}/api/health`, {}, 4);
    const pdf = await drive(`${app.baseUrl}/api/invoices/${big.id}/pdf`, { Authorization: `Bearer ${token}` }, 4);
    const loadAfterPdf = loadavg();

    // 500 finalizations of one account from 16 connections.
    const other = await api("POST", "/customers", { email: "numbers@example.com" });
    const drafts: string[] = [];
    await pool(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
      drafts.push((await api("POST", "/invoices", { customer: other.id, currency: "eur", lines: [{ unit_amount_atom: 100 + i, description: `Line ${i}`, tax_rates: [rates[0]!.id] }] })).id);
    });
    const numbers: string[] = [];
    const started = performance.now();
    await pool(drafts, 16, async (id) => {
      numbers.push(String((await api("POST", `/invoices/${id}/finalize`)).number));
    });
    const wall = (performance.now() - started) / 1000;
    const sequences = numbers.map((n) => Number(n.split("-").pop())).sort((a, b) => a - b);
    // The big invoice took number 1.
    const gapless = sequences.every((value, index) => value === index + 2) && sequences.length === count;

    const ms = (value: number) => `${value.toFixed(1)} ms`;
    console.log(`load average before finalizing (1/5/15 min): ${loadAfterPdf.map((v) => v.toFixed(2)).join(" / ")}; ${new Date().toISOString()}`);
    console.log(`floor   GET /api/health, 4 clients, ${seconds} s: ${floor.rps.toFixed(0)} req/s  p50 ${ms(floor.p50)}  p95 ${ms(floor.p95)}  p99 ${ms(floor.p99)}  ${floor.errors} errors`);
    console.log(`pdf     GET /api/invoices/{id}/pdf (20 lines, 3 rates, de), 4 clients: ${pdf.rps.toFixed(0)} req/s  p50 ${ms(pdf.p50)}  p95 ${ms(pdf.p95)}  p99 ${ms(pdf.p99)}  ${pdf.errors} errors  (bound p95 ≤ 250 ms)`);
    console.log(`finalize ${count} invoices of one account, 16 connections: ${wall.toFixed(1)} s (${(count / wall).toFixed(0)}/s); numbers ${gapless ? "gapless and unique" : "NOT gapless"}`);
    console.log(`load average after (1/5/15 min): ${loadavg().map((v) => v.toFixed(2)).join(" / ")}`);
    if (!gapless) process.exitCode = 1;
  } finally {
    await app.stop();
  }
} finally {
  await database.drop();
}
process.exit(process.exitCode ?? 0);
