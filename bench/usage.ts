/**
 * Benchmark: usage-based billing over HTTP against `next start` (run `npx next build` first).
 *
 *   npm run bench:usage -- [--seconds 60] [--events 10000000] [--requests 400] [--subscriptions 1000]
 *
 * On a fresh database: (1) the floor of ingestion — the same rows (events, identifiers, hourly
 * aggregates) inserted by a bare postgres.js script, batches of 500 at 4 connections — then
 * `POST /api/usage-events/batch` (batches of 500, 4 connections) in accepted events/s; (2) one-event
 * `POST /api/usage-events` at 16 connections beside `GET /api/health` at 16; (3) `--events`
 * synthetic events loaded (db/synthetic-usage.ts), then p50/p99 of `GET /customers/{id}/usage` and
 * of a 30-day `summaries` call at 2 connections; (4) `--subscriptions` sandbox subscriptions with a
 * metered item renewed by one test-clock advance, timed. Prints figures only; asserts nothing.
 */
import "./limits";
import { performance } from "node:perf_hooks";
import { ensureUsagePartitionsFor, loadSyntheticUsage } from "@/db/synthetic-usage";
import { newId } from "@/lib/ids";
import { processCpuMs, startApp } from "@/tests/helpers/server";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, load, log, option } from "./http";
import { issueToken } from "@/lib/auth/tokens";
import { drizzle } from "drizzle-orm/postgres-js";

const SECONDS = Number(option("seconds", "60"));
const EVENTS = Number(option("events", "10000000").replaceAll("_", ""));
const REQUESTS = Number(option("requests", "400"));
const SUBSCRIPTIONS = Number(option("subscriptions", "1000"));
const MAIN = newId("account");
const NOISE = newId("account");

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_usage");
  try {
    const { organization, token } = await benchAccounts(sql, MAIN, NOISE);
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const call = async (account: string, bearer: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}/api/${account}/${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, string> & { current_period_end: string };
    };
    const post = (path: string, body: unknown) => call(MAIN, token, "POST", path, body);
    const meter = await post("meters", { event_name: "api_call", display_name: "API calls", aggregation: "sum" });
    const customers: string[] = [];
    for (let i = 0; i < 20; i++) customers.push((await post("customers", { email: `u${i}@example.com` })).id!);
    const load1 = (await import("node:os")).loadavg;
    console.log(
      `Usage benchmark, ${new Date().toISOString()}: ${SECONDS} s per ingestion phase, ${EVENTS.toLocaleString("en")} events loaded for reads, ` +
        `${SUBSCRIPTIONS} metered subscriptions renewed. Load average at start: ${load1().map((l) => l.toFixed(2)).join(" ")}.`,
    );

    // (1) The floor: the same rows by a bare postgres.js script, batches of 500 at 4 connections.
    await ensureUsagePartitionsFor(sql, new Date(Date.now() - 31 * 86_400_000), new Date(Date.now() + 86_400_000));
    let floorRows = 0;
    const floorEnd = performance.now() + SECONDS * 1000;
    await Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let batch = 0; performance.now() < floorEnd; batch++) {
          const now = new Date().toISOString();
          const rows = Array.from({ length: 500 }, (_, i) => ({
            i: `floor-${lane}-${batch}-${i}`,
            c: customers[i % customers.length]!,
            v: 1 + (i % 10),
          }));
          await sql`
            with input as (select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(i text, c text, v bigint)),
            k as (insert into usage_event_keys (account_id, identifier, body_hash, ts, received)
              select ${NOISE}, i, 'floor', ${now}::timestamptz, ${now}::timestamptz from input on conflict do nothing returning identifier),
            e as (insert into usage_events (account_id, identifier, meter_id, customer_id, ts, value, payload, received)
              select ${NOISE}, i, ${meter.id!}, c, ${now}::timestamptz, v, '{}', ${now}::timestamptz from input join k on k.identifier = i
              returning customer_id, value)
            insert into usage_hourly (account_id, meter_id, customer_id, hour, sum_value, event_count, max_value)
            select ${NOISE}, ${meter.id!}, customer_id, date_trunc('hour', ${now}::timestamptz, 'UTC'), sum(value), count(*), max(value)
            from e group by customer_id order by customer_id
            on conflict (account_id, meter_id, customer_id, hour) do update set sum_value = usage_hourly.sum_value + excluded.sum_value,
              event_count = usage_hourly.event_count + excluded.event_count, max_value = greatest(usage_hourly.max_value, excluded.max_value)`;
          floorRows += 500;
        }
      }),
    );
    const floorRate = floorRows / SECONDS;
    log(`floor (bare postgres.js, 500-row statements, 4 connections): ${floorRate.toFixed(0)} events/s`);

    let counter = 0;
    const batchBody = () =>
      JSON.stringify({
        events: Array.from({ length: 500 }, (_, i) => ({
          event_name: "api_call",
          customer: customers[i % customers.length],
          identifier: `b${counter++}`,
          payload: { value: 1 + (i % 10) },
        })),
      });
    const cpuBefore = processCpuMs(app.pid);
    const batches = await load(base, token, () => `/api/${MAIN}/usage-events/batch`, { connections: 4, duration: SECONDS, method: "POST", body: batchBody });
    const accepted = Number((await sql`select count(*)::text as n from usage_event_keys where account_id = ${MAIN}`)[0]!.n);
    const rate = accepted / SECONDS;
    log(
      `POST /usage-events/batch (500 events, 4 connections): ${rate.toFixed(0)} accepted events/s (${(rate / floorRate).toFixed(2)} × floor), ` +
        `p50 ${batches.p50} ms p99 ${batches.p99} ms, ${((processCpuMs(app.pid) - cpuBefore) / accepted).toFixed(3)} ms app CPU/event` +
        `${batches.errors ? ` (${batches.errors} errors)` : ""}`,
    );

    // (2) One event per request at 16 connections, beside the floor GET /api/health.
    const health = await load(base, token, () => "/api/health", { connections: 16, duration: Math.min(SECONDS, 20) });
    const single = await load(base, token, () => `/api/${MAIN}/usage-events`, {
      connections: 16,
      duration: Math.min(SECONDS, 20),
      method: "POST",
      body: () => JSON.stringify({ event_name: "api_call", customer: customers[counter % customers.length], identifier: `s${counter++}`, payload: { value: 1 } }),
    });
    log(`GET /api/health at 16 connections: ${health.rps.toFixed(0)} req/s, p99 ${health.p99} ms`);
    log(
      `POST /usage-events at 16 connections: ${single.rps.toFixed(0)} req/s (${(single.rps / health.rps).toFixed(2)} × health), p99 ${single.p99} ms` +
        `${single.errors ? ` (${single.errors} errors)` : ""}`,
    );

    // (3) Reads with EVENTS events in the account.
    let started = performance.now();
    await loadSyntheticUsage(sql, { accountId: MAIN, events: EVENTS, from: new Date(Date.now() - 30 * 86_400_000), to: new Date() });
    log(`loaded ${EVENTS.toLocaleString("en")} synthetic events in ${elapsed(started)}`);
    const day = 86_400_000;
    const today = Math.floor(Date.now() / day) * day;
    const reads: [string, () => string][] = [
      ["GET /api/health", () => "/api/health"],
      ["GET /customers/{id}/usage", () => `/api/${MAIN}/customers/${customers[counter++ % customers.length]}/usage?meter=${meter.id}`],
      [
        "GET /meters/{id}/summaries (30 days, by day)",
        () =>
          `/api/${MAIN}/meters/${meter.id}/summaries?customer=${customers[counter++ % customers.length]}&group_by=day` +
          `&start=${new Date(today - 29 * day).toISOString()}&end=${new Date(today + day).toISOString()}`,
      ],
    ];
    for (const [name, path] of reads) {
      await load(base, token, path, { connections: 2, amount: 40 });
      const result = await load(base, token, path, { connections: 2, amount: REQUESTS });
      log(`${name.padEnd(46)} p50 ${String(result.p50).padStart(4)} ms  p99 ${String(result.p99).padStart(4)} ms${result.errors ? `  (${result.errors} errors)` : ""}`);
    }

    // (4) Renewal of metered subscriptions in a sandbox account, by one test-clock advance.
    const sandbox = newId("account");
    await sql`insert into accounts (id, organization_id, name, livemode) values (${sandbox}, ${organization}, 'Sandbox', false)`;
    const sandboxToken = (await issueToken(drizzle(sql), { accountId: sandbox, kind: "secret", name: "bench" })).token;
    const sb = (method: string, path: string, body?: unknown) => call(sandbox, sandboxToken, method, path, body);
    const sbMeter = await sb("POST", "meters", { event_name: "api_call", display_name: "API calls", aggregation: "sum" });
    const product = await sb("POST", "products", { name: "Metered" });
    const price = await sb("POST", "prices", {
      product: product.id,
      currency: "usd",
      type: "recurring",
      recurring: { interval: "month", usage_type: "metered", meter: sbMeter.id },
      billing_scheme: "tiered",
      tiers_mode: "graduated",
      tiers: [{ up_to: 1000, unit_amount_atom: 2 }, { up_to: null, unit_amount_atom: 1 }],
    });
    let periodEnd = 0;
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const customer = await sb("POST", "customers", { email: `s${i}@example.com` });
      const subscription = await sb("POST", "subscriptions", { customer: customer.id, items: [{ price: price.id }] });
      periodEnd = Math.max(periodEnd, Date.parse(subscription.current_period_end));
    }
    await loadSyntheticUsage(sql, { accountId: sandbox, events: Math.min(EVENTS, 1_000_000), from: new Date(Date.now() - 3_600_000), to: new Date() });
    started = performance.now();
    await sb("POST", "test-clock/advance", { to: new Date(periodEnd + 2 * 3_600_000).toISOString() });
    const invoices = Number((await sql`select count(*)::text as n from invoices where account_id = ${sandbox}`)[0]!.n);
    log(`renewal of ${SUBSCRIPTIONS} metered subscriptions (one test-clock advance): ${elapsed(started)}, ${invoices} invoices`);
    console.log(`\nLoad average at end: ${load1().map((l) => l.toFixed(2)).join(" ")}.`);
  } finally {
    await cleanUp();
  }
}

await main();
