/* Throwaway: statements of renewals run by one test-clock advance (not committed). */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { drizzle } from "drizzle-orm/postgres-js";
import * as schema from "@/db/schema";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { startApp } from "@/tests/helpers/server";

const count = Number(process.argv[2] ?? 20);
const database = await createFreshDatabase("profile_renewal");
await migratePostgres(database.url);
process.env.DATABASE_URL = database.url;
process.env.DATABASE_POOL_SIZE = process.env.POOL ?? "10";
const statements: string[] = [];
const client = postgres(database.url, { max: Number(process.env.DATABASE_POOL_SIZE), onnotice: () => {} });
const db = drizzle(client, { schema, logger: { logQuery: (query: string) => void statements.push(query) } });
(globalThis as Record<symbol, unknown>)[Symbol.for("billing-service.db")] = Promise.resolve({ kind: "postgres", db, close: () => client.end() });
const { wire } = await import("@/lib/server/wiring");
wire();
const { createOrganization } = await import("@/lib/organizations/service");
const { issueToken } = await import("@/lib/auth/tokens");
const { advanceClock } = await import("@/lib/clock/service");
const app = await startApp({
  DATABASE_URL: database.url, CLOCK_TICK_MS: "3600000", RATE_LIMIT_PER_SECOND: "100000000",
  NEXTAUTH_SECRET: randomBytes(32).toString("base64url"), WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
});
try {
  const organization = await createOrganization(db as never, { name: "Profile" });
  const account = organization.sandboxAccountId;
  const { token } = await issueToken(db as never, { accountId: account, kind: "secret", name: "p" });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${app.baseUrl}/api${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const json = (await response.json()) as Record<string, unknown> & { id: string };
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const product = await api("POST", "/products", { name: "Plan" });
  const price = await api("POST", "/prices", { product: product.id, currency: "usd", unit_amount_atom: 1900, type: "recurring", recurring: { interval: "month" } });
  const trialEnd = new Date(Date.now() + 10 * 86_400_000);
  trialEnd.setUTCMilliseconds(0);
  for (let i = 0; i < count; i++) {
    const customer = await api("POST", "/customers", { email: `p-${i}@example.com` });
    await api("POST", "/subscriptions", { customer: customer.id, items: [{ price: price.id }], default_payment_method: "pm_sandbox_succeeds", trial_end: trialEnd.toISOString() });
  }
  statements.length = 0;
  const ctx = { accountId: account, livemode: false, actor: { type: "system" as const, id: null }, correlationId: null, now: () => new Date() };
  const started = performance.now();
  const state = await advanceClock({ ctx, input: { to: new Date(trialEnd.getTime() + 86_400_000) } });
  const ms = performance.now() - started;
  const byKind = new Map<string, number>();
  for (const s of statements) {
    const key = s.replace(/\s+/g, " ").slice(0, 90);
    byKind.set(key, (byKind.get(key) ?? 0) + 1);
  }
  console.log(`transitions ${state.transitionsRun}; statements ${statements.length} (${(statements.length / count).toFixed(1)} per subscription); ${ms.toFixed(0)} ms (${(ms / count).toFixed(0)} ms per subscription)`);
  for (const [k, n] of [...byKind.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(String(n).padStart(5), k);
} finally {
  await app.stop();
  await client.end();
  await database.drop();
}
