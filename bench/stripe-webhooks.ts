/**
 * Benchmark: Stripe's webhooks received (issue #36: "a webhook answered in ≤ 50 ms p99 at 200
 * events/s"), on the built app (`npm run build` first), against the tests' Stripe stand-in.
 *
 * A sandbox account connected to Stripe test keys (the stand-in made its webhook endpoint and
 * signing secret). For `--seconds` (default 30) at `--rate` events a second (default 200, an open
 * loop: a slow answer does not slow the sender), each request is a fresh `payment_intent.succeeded`
 * event signed for that endpoint as Stripe signs (`generateTestHeaderString`), POSTed to
 * `POST /api/processors/stripe/{account}`, which verifies it, stores it once and answers, then
 * applies it in a job after the response (these events name intents the account does not have:
 * the job re-reads each at the stand-in and marks it ignored, so that work runs beside the load).
 * Printed: the answers' p50 / p99 and errors; checked, not timed: every answered event stored, once.
 *
 * The floor, measured in the same run at the same rate and connections: `GET /api/health`.
 *
 *   npx tsx bench/stripe-webhooks.ts [--rate 200] [--seconds 30]        (npm run bench:stripe-webhooks -- …)
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import autocannon from "autocannon";
import { operationPath } from "@/lib/operation-paths";
import { benchEnvironment, option } from "./http";
import { withStripeBenchApp } from "./stripe-app";

benchEnvironment();

const RATE = Number(option("rate", "200"));
const SECONDS = Number(option("seconds", "30"));
if (!Number.isInteger(RATE) || RATE <= 0 || !Number.isInteger(SECONDS) || SECONDS <= 0) throw new Error("--rate and --seconds need positive integers.");
/** Enough connections that the open loop never waits for one at the target rate (each answer well under 100 ms). */
const CONNECTIONS = 32;

type Measured = { p50: number; p99: number; max: number; sent: number; errors: number };

async function openLoop(url: string, request: () => { method: "GET" | "POST"; path: string; headers?: Record<string, string>; body?: string }): Promise<Measured> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: SECONDS,
    requests: [{ setupRequest: (base) => ({ ...base, ...request() }) }],
  });
  return { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, sent: result.requests.total, errors: result.non2xx + result.errors + result.timeouts };
}

await withStripeBenchApp("bench_stripe_webhooks", {}, async ({ app, stripe, sql, account, token }) => {
  const connected = await fetch(`${app.baseUrl}${operationPath("connectPaymentProcessor", { account_id: account })}`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ processor: "stripe", secret_key: "sk_test_bench_webhooks", publishable_key: "pk_test_bench_webhooks" }),
  });
  const connection = (await connected.json()) as { webhook_endpoint_id: string };
  if (connected.status !== 200) throw new Error(`connecting Stripe: ${connected.status} ${JSON.stringify(connection)}`);
  const receivePath = operationPath("receiveProcessorEvent", { processor: "stripe", account });

  let sequence = 0;
  const signedEvent = () => {
    sequence += 1;
    const id = `evt_bench_${sequence}_${randomBytes(6).toString("hex")}`;
    const payload = JSON.stringify({
      id,
      object: "event",
      api_version: "2025-01-27.acacia",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      type: "payment_intent.succeeded",
      data: { object: { id: `pi_bench_${sequence}`, object: "payment_intent", status: "succeeded", amount: 1900, amount_received: 1900, currency: "usd", metadata: { payment_intent: `pi_test_bench_${sequence}` } } },
    });
    return { method: "POST" as const, path: receivePath, headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, connection.webhook_endpoint_id) }, body: payload };
  };

  // Warm both paths (first compiles, connections) before measuring.
  for (let i = 0; i < 50; i++) {
    const warm = signedEvent();
    await fetch(`${app.baseUrl}${warm.path}`, { method: "POST", headers: warm.headers, body: warm.body });
    await fetch(`${app.baseUrl}/api/health`);
  }
  const storedBefore = Number((await sql`select count(*)::int as n from processor_events where account_id = ${account}`)[0]!.n);

  const floor = await openLoop(app.baseUrl, () => ({ method: "GET", path: "/api/health" }));
  const sentBefore = sequence;
  const webhooks = await openLoop(app.baseUrl, signedEvent);
  const sent = sequence - sentBefore;
  const load = loadavg();

  const stored = Number((await sql`select count(*)::int as n from processor_events where account_id = ${account}`)[0]!.n) - storedBefore;
  const row = (name: string, m: Measured) =>
    `  ${name.padEnd(34)} p50 ${String(m.p50).padStart(4)} ms  p99 ${String(m.p99).padStart(4)} ms  max ${String(m.max).padStart(5)} ms  ${m.sent} requests, ${m.errors} errors`;
  console.log(`Stripe webhooks at ${RATE}/s for ${SECONDS} s (${CONNECTIONS} connections, open loop)`);
  console.log(row("floor: GET /api/health", floor));
  console.log(row("POST /api/processors/stripe/{acc}", webhooks));
  console.log(`  p99 ratio to the floor: ${(webhooks.p99 / Math.max(floor.p99, 1)).toFixed(2)}×; bound p99 ≤ 50 ms: ${webhooks.p99 <= 50 ? "met" : "missed"}`);
  console.log(`  events answered: ${webhooks.sent} (${sent} signed); stored: ${stored}, each once (the key is Stripe's event id); load average after: ${load.map((l) => l.toFixed(2)).join(" ")}`);
  // autocannon signs a few requests more than it completes (those in flight when the time is up): every answered event is stored, none beyond those signed.
  if (webhooks.errors > 0 || stored < webhooks.sent || stored > sent) {
    throw new Error(`every answered event must be stored, once: ${webhooks.errors} errors, ${stored} stored of ${webhooks.sent} answered (${sent} signed)`);
  }
});
