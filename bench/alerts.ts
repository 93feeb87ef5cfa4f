/**
 * Benchmark: usage ingestion with alerts defined, and how long an alert takes to fire, over HTTP
 * against `next start` (run `npx next build` first).
 *
 *   npm run bench:alerts -- [--seconds 60] [--alerts 100] [--probes 6]
 *
 * On a fresh database, one account with 20 customers and 4 meters: (1) the floor, the same
 * `POST /api/usage-events/batch` load (batches of 500, 4 connections) with no alert defined; (2)
 * the same load with `--alerts` alerts defined (usage thresholds on the 4 meters for every
 * customer, never reached, so every mark is evaluated in full on each tick; plus spend and
 * credit-balance alerts), while `--probes` events spread over the phase each cross a fresh
 * customer's threshold, each timed until its trigger is listed (`GET /alert-triggers`): the time
 * from the crossing event's answer to its `alert.triggered`. The app runs with the production
 * clock tick (CLOCK_TICK_MS unset: 15 s). Prints figures only; asserts nothing.
 */
import "./limits";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { newId } from "@/lib/ids";
import { startApp } from "@/tests/helpers/server";
import { benchAccounts, benchDatabase, benchEnvironment, load, log, option } from "./http";

const SECONDS = Number(option("seconds", "60"));
const ALERTS = Number(option("alerts", "100"));
const PROBES = Number(option("probes", "6"));
const MAIN = newId("account");
const NOISE = newId("account");

async function main(): Promise<void> {
  benchEnvironment();
  delete process.env.CLOCK_TICK_MS;
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_alerts");
  try {
    const { token } = await benchAccounts(sql, MAIN, NOISE);
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}/api/${MAIN}/${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown> & { id: string; items: unknown[] };
    };
    const meters: string[] = [];
    for (let m = 0; m < 4; m++) meters.push((await call("POST", "meters", { event_name: `call_${m}`, display_name: `Calls ${m}`, aggregation: "sum" })).id);
    const customers: string[] = [];
    for (let i = 0; i < 20; i++) customers.push((await call("POST", "customers", { email: `u${i}@example.com` })).id);
    console.log(`Alerts benchmark, ${new Date().toISOString()}: ${SECONDS} s per phase, ${ALERTS} alerts. Load average at start: ${loadavg().map((l) => l.toFixed(2)).join(" ")}.`);

    let counter = 0;
    const batchBody = () =>
      JSON.stringify({
        events: Array.from({ length: 500 }, (_, i) => ({
          event_name: `call_${i % 4}`,
          customer: customers[i % customers.length],
          identifier: `b${counter++}`,
          payload: { value: 1 + (i % 10) },
        })),
      });
    const accepted = async () => Number((await sql`select count(*)::text as n from usage_event_keys where account_id = ${MAIN}`)[0]!.n);
    const phase = async (name: string, during?: () => Promise<void>) => {
      const before = await accepted();
      const [result] = await Promise.all([load(base, token, () => `/api/${MAIN}/usage-events/batch`, { connections: 4, duration: SECONDS, method: "POST", body: batchBody }), during?.()]);
      const rate = ((await accepted()) - before) / SECONDS;
      log(`${name}: ${rate.toFixed(0)} accepted events/s, p50 ${result.p50} ms p99 ${result.p99} ms${result.errors ? ` (${result.errors} errors)` : ""}`);
      return rate;
    };

    // (1) The floor: no alert defined (the ingest statement's mark finds no active alert).
    const floor = await phase("floor, POST /usage-events/batch (500 events, 4 connections), no alert");

    // (2) ALERTS alerts: 80 % usage thresholds for every customer on the 4 meters (never reached), the rest spend and credit alerts.
    for (let a = 0; a < ALERTS; a++) {
      if (a % 10 < 8) await call("POST", "alerts", { type: "usage_threshold", meter: meters[a % 4], threshold: 1_000_000_000_000 + a });
      else if (a % 10 === 8) await call("POST", "alerts", { type: "spend_threshold", threshold_atom: 1_000_000_000_000, currency: "usd" });
      else await call("POST", "alerts", { type: "credit_balance", below_atom: 0, currency: "usd", customer: customers[a % customers.length] });
    }
    // The probes: a fresh customer each with its own threshold; their creation marks are evaluated (nothing fires: no usage) before the load.
    const probeSetup: { customer: string; alert: string }[] = [];
    for (let p = 0; p < PROBES; p++) {
      const customer = (await call("POST", "customers", { email: `probe${p}@example.com` })).id;
      probeSetup.push({ customer, alert: (await call("POST", "alerts", { type: "usage_threshold", meter: meters[0], customer, threshold: 5 })).id });
    }
    while (Number((await sql`select count(*)::text as n from alert_marks where account_id = ${MAIN}`)[0]!.n) > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    const latencies: number[] = [];
    // During the load, at evenly spread instants, each probe's crossing event, then its trigger polled every 100 ms.
    const probes = () =>
      Promise.all(
        probeSetup.map(async ({ customer, alert }, p) => {
          await new Promise((resolve) => setTimeout(resolve, ((p + 0.5) * SECONDS * 1000) / (PROBES + 1)));
          await call("POST", "usage-events", { event_name: "call_0", customer, identifier: `probe-${p}`, payload: { value: 5 } });
          const sent = performance.now();
          while ((await call("GET", `alert-triggers?alert=${alert}`)).items.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
          latencies.push(performance.now() - sent);
        }),
      ).then(() => undefined);
    const withAlerts = await phase(`with ${ALERTS} alerts (+ ${PROBES} probes), POST /usage-events/batch (500 events, 4 connections)`, probes);
    log(`with alerts / floor: ${(withAlerts / floor).toFixed(2)}`);
    latencies.sort((a, b) => a - b);
    log(
      `crossing event → alert.triggered (${latencies.length} probes, 15 s clock tick): min ${(latencies[0]! / 1000).toFixed(1)} s, ` +
        `median ${(latencies[Math.floor(latencies.length / 2)]! / 1000).toFixed(1)} s, max ${(latencies.at(-1)! / 1000).toFixed(1)} s`,
    );
    const [marks] = await sql`select count(*)::text as n from alert_marks where account_id = ${MAIN}`;
    log(`alert marks still due at the end: ${marks!.n}`);
    console.log(`\nLoad average at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}.`);
  } finally {
    await cleanUp();
  }
}

await main();
