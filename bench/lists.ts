/**
 * Benchmark: every list but the events' at 1 M objects of its kind in one account, over HTTP
 * against `next start` (run `npx next build` first).
 *
 *   npm run bench:lists -- [--objects 1000000] [--kinds invoices,customers] [--requests 400] [--seconds 10]
 *
 * Loads `--objects` synthetic objects of each kind into one account (db/synthetic-objects.ts,
 * with their parents: one per ten objects), 10 % as many into a second account as noise, then for
 * each list prints p50/p99 at 2 connections of: no filter, each status-like filter, a parent
 * filter, a created range with cut days, `offset=10000` and a cursor anywhere in the list, beside
 * the floor (GET /api/health) of the same run. Then the write path of the list counters:
 * POST /api/customers at 16 connections with the customers' count trigger enabled and disabled,
 * alternating. Prints figures only; asserts nothing. Uses a fresh database (dropped at the end).
 */
import "./limits";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, load, log, option, seeded, type Latency } from "./http";
import { performance } from "node:perf_hooks";
import { drizzle } from "drizzle-orm/postgres-js";
import { compactListCounts } from "@/db/list-totals";
import { loadSyntheticObjects, SYNTHETIC_KINDS, type SyntheticKind } from "@/db/synthetic-objects";
import { newId } from "@/lib/ids";
import { processCpuMs, startApp } from "@/tests/helpers/server";

const OBJECTS = Number(option("objects", "1000000").replaceAll("_", ""));
const KINDS = option("kinds", SYNTHETIC_KINDS.join(",")).split(",") as SyntheticKind[];
const REQUESTS = Number(option("requests", "400"));
const SECONDS = Number(option("seconds", "10"));
const MAIN = newId("account");
const NOISE = newId("account");

const { random, pick } = seeded(11);

/** Each list: its table, API path, status-like filters with their values, and its parent filter. */
type ListShape = { table: string; path: string; filters: [string, string[]][]; parent?: [string, string] };
const SHAPES: Record<SyntheticKind, ListShape> = {
  customers: { table: "customers", path: "customers", filters: [] },
  products: { table: "products", path: "products", filters: [["active", ["true", "false"]]] },
  prices: { table: "prices", path: "prices", filters: [["active", ["true", "false"]], ["type", ["recurring", "one_time"]]], parent: ["product", "product_id"] },
  coupons: { table: "coupons", path: "coupons", filters: [] },
  invoices: { table: "invoices", path: "invoices", filters: [["status", ["paid", "open", "draft", "void", "uncollectible"]]], parent: ["customer", "customer_id"] },
  subscriptions: { table: "subscriptions", path: "subscriptions", filters: [["status", ["active", "cancelled", "trialing", "past_due", "paused"]]], parent: ["customer", "customer_id"] },
  payment_intents: { table: "payment_intents", path: "payment-intents", filters: [["status", ["succeeded", "requires_payment_method", "canceled", "requires_capture"]]], parent: ["customer", "customer_id"] },
  payments: { table: "payments", path: "payments", filters: [], parent: ["payment_intent", "payment_intent_id"] },
  refunds: { table: "refunds", path: "refunds", filters: [], parent: ["payment", "payment_id"] },
  checkout_sessions: { table: "checkout_sessions", path: "checkout/sessions", filters: [["status", ["complete", "expired", "open"]]], parent: ["customer", "customer_id"] },
  event_deliveries: { table: "event_deliveries", path: "webhook-endpoints/{endpoint}/deliveries", filters: [["status", ["delivered", "failed", "pending"]]] },
};

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_lists");
  try {
    const { token } = await benchAccounts(sql, MAIN, NOISE);
    const app = await startApp({ DATABASE_URL: url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}/api/${MAIN}/${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    // Endpoints subscribed to a type nothing here emits: their deliveries are the synthetic ones.
    const endpoint = (await post("webhook-endpoints", { url: "https://127.0.0.1:9/bench", events: ["coupon.deleted"] })).id;
    const noiseEndpoint = newId("webhookEndpoint");
    await sql`insert into webhook_endpoints (id, account_id, url, events, secret_ciphertext) values (${noiseEndpoint}, ${NOISE}, 'https://127.0.0.1:9/noise', '{coupon.deleted}', 'x')`;
    console.log(`List benchmark, ${new Date().toISOString()}: ${OBJECTS.toLocaleString("en")} objects per list (+10 % noise); ${REQUESTS} requests per row at 2 connections.`);

    const to = new Date(Date.now() - 86_400_000);
    const from = new Date(to.getTime() - 365 * 86_400_000);
    const phase = performance.now();
    for (const kind of KINDS) {
      const started = performance.now();
      await loadSyntheticObjects(sql, { accountId: MAIN, kind, count: OBJECTS, from, to, endpointId: endpoint });
      await loadSyntheticObjects(sql, { accountId: NOISE, kind, count: OBJECTS / 10, from, to, endpointId: noiseEndpoint });
      log(`${kind}: loaded in ${elapsed(started)}`);
    }
    const folded = await compactListCounts(drizzle(sql));
    await sql`vacuum analyze`;
    log(`all loaded, ${folded.toLocaleString("en")} count deltas folded in, vacuumed: ${elapsed(phase)}`);

    const day = (offsetDays: number) => new Date(Date.now() - offsetDays * 86_400_000 - 37 * 60_000).toISOString();
    const rows: [string, () => string][] = [["floor: GET /api/health", () => "/api/health"]];
    for (const kind of KINDS) {
      const shape = SHAPES[kind];
      const path = `/api/${MAIN}/${shape.path.replace("{endpoint}", endpoint)}`;
      const scope = kind === "event_deliveries" ? sql`webhook_endpoint_id = ${endpoint}` : sql`account_id = ${MAIN}`;
      const sample = await sql<{ id: string; parent: string | null }[]>`
        select id, ${sql.unsafe(shape.parent?.[1] ?? "null")} as parent from ${sql(shape.table)} tablesample system (${Math.min(100, 2_000_000 / OBJECTS)}) where ${scope} limit 2000`;
      const label = (what: string) => `${kind} ${what}`;
      rows.push([label("no filter"), () => path]);
      for (const [name, values] of shape.filters) rows.push([label(name), () => `${path}?${name}=${pick(values)}`]);
      if (shape.filters.length > 1) rows.push([label(shape.filters.map(([name]) => name).join(" + ")), () => `${path}?${shape.filters.map(([name, values]) => `${name}=${pick(values)}`).join("&")}`]);
      if (shape.parent) rows.push([label(shape.parent[0]), () => `${path}?${shape.parent![0]}=${pick(sample).parent}`]);
      if (kind === "customers") rows.push([label("q (prefix, ~1,100 matches)"), () => `${path}?q=c${100 + Math.floor(random() * 900)}`]);
      const filter = shape.filters[0];
      rows.push([label("created range (90 days, cut days)"), () => `${path}?created[gte]=${day(200)}&created[lt]=${day(110)}`]);
      if (filter) rows.push([label(`created range + ${filter[0]}`), () => `${path}?${filter[0]}=${pick(filter[1])}&created[gte]=${day(300)}&created[lt]=${day(20)}`]);
      rows.push([label("offset=10000"), () => `${path}?offset=10000`]);
      rows.push([label("starting_after (anywhere)"), () => `${path}?starting_after=${pick(sample).id}`]);
    }
    const results: [string, Latency][] = [];
    for (const [name, path] of rows) {
      const check = await fetch(`${base}${path()}`, { headers: { authorization: `Bearer ${token}` } });
      if (check.status !== 200) throw new Error(`${name}: ${check.status} ${await check.text()}`);
      await load(base, token, path, { connections: 2, amount: 40 });
      const result = await load(base, token, path, { connections: 2, amount: REQUESTS });
      results.push([name, result]);
      log(`${name.padEnd(52)} p50 ${String(result.p50).padStart(4)} ms  p99 ${String(result.p99).padStart(4)} ms${result.errors ? `  (${result.errors} errors)` : ""}`);
    }
    const worst = results.slice(1).reduce((a, b) => (b[1].p99 > a[1].p99 ? b : a));
    console.log(`\nWorst p99: ${worst[0]} ${worst[1].p99} ms (floor p99 ${results[0]![1].p99} ms).`);

    // The write path: POST /api/customers with the customers' count trigger on and off.
    console.log(`\nPOST /api/customers at 16 connections, ${SECONDS} s each, the customers' count trigger on and off, alternating:`);
    let n = 0;
    const body = () => JSON.stringify({ email: `w${++n}@example.com` });
    for (const on of [true, false, true, false]) {
      await sql.unsafe(`alter table customers ${on ? "enable" : "disable"} trigger count_customers_insert`);
      await load(base, token, () => "/api/customers", { connections: 16, duration: 2, method: "POST", body });
      const cpuBefore = processCpuMs(app.pid);
      const result = await load(base, token, () => "/api/customers", { connections: 16, duration: SECONDS, method: "POST", body });
      const cpu = (processCpuMs(app.pid) - cpuBefore) / (result.rps * SECONDS);
      log(`trigger ${on ? "on " : "off"}  ${result.rps.toFixed(0).padStart(5)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  ${cpu.toFixed(2)} ms app CPU/request${result.errors ? `  (${result.errors} errors)` : ""}`);
    }
    await sql`alter table customers enable trigger count_customers_insert`;
  } finally {
    await cleanUp();
  }
}

await main();
