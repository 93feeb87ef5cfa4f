/**
 * Benchmark: event → webhook received latency with the embedded driver, on an idle system.
 *
 * Starts the built app (`next start`) on a fresh PostgreSQL database, seeds it, subscribes an
 * HTTPS receiver on loopback to `customer.created`, then creates customers one at a time
 * (POST /api/customers) and measures from just before each POST to the moment the receiver has
 * the `customer.created` request for that customer. Prints p50/p95/max of that latency and the
 * API's own POST latency, then stops the app and drops the database. Prints figures only.
 *
 *   npm run build                                   (once: it runs the production build)
 *   npx tsx bench/webhook-latency.ts [--events 50]  (npm run bench:webhooks -- …)
 *
 * Needs the PostgreSQL server of the tests (TEST_ADMIN_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres) and openssl. Run it from the project root.
 */
import "./limits";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { Receiver, type ReceivedRequest } from "@/tests/helpers/receiver";
import { PROJECT_ROOT, startApp, type RunningApp } from "@/tests/helpers/server";
import { installTestCertificate } from "@/tests/helpers/tls";

const run = promisify(execFile);

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number((process.argv[index + 1] ?? "").replaceAll("_", ""));
  if (!Number.isInteger(value) || value <= 0) {
    console.error(`--${name} needs a positive integer.`);
    process.exit(1);
  }
  return value;
}

const EVENTS = option("events", 50);
const WARMUP = 5;
/** Pause between two measurements, so that each starts on an idle app (driver done recording). */
const IDLE_GAP_MS = 100;
const WEBHOOK_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------- helpers

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summary(samples: number[]): { p50: number; p95: number; max: number; min: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? Number.NaN,
    min: sorted[0] ?? Number.NaN,
    mean: samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length),
  };
}

const ms = (value: number) => (Number.isNaN(value) ? "-" : value < 10 ? value.toFixed(2) : value.toFixed(1));
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringField(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === "string" ? field : undefined;
}

/** `data.object.id` of a webhook body. */
function objectIdOf(body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.data)) return undefined;
  return stringField(body.data.object, "id");
}

type Seed = { secret_token: string; account_id: string };
function parseSeed(stdout: string): Seed {
  const parsed: unknown = JSON.parse(stdout);
  const secretToken = stringField(parsed, "secret_token");
  const accountId = stringField(parsed, "account_id");
  if (!secretToken || !accountId) throw new Error(`Unexpected seed output: ${stdout}`);
  return { secret_token: secretToken, account_id: accountId };
}

/** Arrival times (performance.now()) of `customer.created` requests, by customer id. */
class Arrivals {
  private readonly times = new Map<string, number>();
  private readonly waiters = new Map<string, (time: number) => void>();
  invalidSignatures = 0;

  record(request: ReceivedRequest, time: number): void {
    if (request.headers["x-webhook-event-type"] !== "customer.created") return;
    if (!request.signatureValid) this.invalidSignatures++;
    const body: unknown = request.body;
    const id = objectIdOf(body);
    if (!id || this.times.has(id)) return;
    this.times.set(id, time);
    this.waiters.get(id)?.(time);
  }

  /** When the webhook for `customerId` arrived (waiting for it if it has not yet). */
  async of(customerId: string, timeoutMs: number): Promise<number> {
    const known = this.times.get(customerId);
    if (known !== undefined) return known;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(customerId);
        reject(new Error(`No customer.created webhook for ${customerId} within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.waiters.set(customerId, (time) => {
        clearTimeout(timer);
        this.waiters.delete(customerId);
        resolve(time);
      });
    });
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  if (!existsSync(path.join(PROJECT_ROOT, ".next", "BUILD_ID"))) {
    console.error("No production build (.next/BUILD_ID is missing). Build first:\n\n  npm run build\n");
    process.exit(1);
  }
  const started = performance.now();
  console.log(`Webhook latency benchmark (embedded driver): ${EVENTS} customers created one at a time, ${WARMUP} warm-up calls first.`);

  installTestCertificate();
  Object.assign(process.env, {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  });

  const database = await createFreshDatabase("bench_webhooks");
  let receiver: Receiver | undefined;
  let app: RunningApp | undefined;
  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    await app?.stop();
    await receiver?.close();
    await database.drop();
  };
  const interrupt = () => {
    console.error("\nInterrupted: stopping the app and dropping the benchmark database.");
    void cleanUp().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  try {
    await migratePostgres(database.url);
    const { stdout } = await run("npm", ["run", "--silent", "seed", "--", "--json"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    const seed = parseSeed(stdout);

    const arrivals = new Arrivals();
    receiver = await Receiver.start();
    receiver.respond((request) => {
      arrivals.record(request, performance.now());
      return { status: 200, body: "ok" };
    });

    let phase = performance.now();
    app = await startApp({ DATABASE_URL: database.url });
    const baseUrl = app.baseUrl;
    console.log(`  app started on ${baseUrl} in ${((performance.now() - phase) / 1000).toFixed(1)} s`);

    const headers = { Authorization: `Bearer ${seed.secret_token}`, "Content-Type": "application/json" };
    const post = async (apiPath: string, body: unknown): Promise<{ status: number; body: unknown; ms: number }> => {
      const t0 = performance.now();
      const response = await fetch(`${baseUrl}/api${apiPath}`, { method: "POST", headers, body: JSON.stringify(body) });
      const parsed: unknown = await response.json();
      return { status: response.status, body: parsed, ms: performance.now() - t0 };
    };

    const endpoint = await post(`/${seed.account_id}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
    const secret = stringField(endpoint.body, "secret");
    if (endpoint.status !== 201 || !secret) throw new Error(`Endpoint creation failed (${endpoint.status}): ${JSON.stringify(endpoint.body)}`);
    receiver.useSecret(secret);

    /** One measurement: POST a customer, wait for its webhook. */
    const createCustomer = async (label: string) => {
      const t0 = performance.now();
      const created = await post("/customers", { email: `${label}@example.com`, name: `Benchmark ${label}` });
      const answered = performance.now();
      const id = stringField(created.body, "id");
      if (created.status !== 201 || !id) throw new Error(`POST /customers failed (${created.status}): ${JSON.stringify(created.body)}`);
      let arrived: number;
      try {
        arrived = await arrivals.of(id, WEBHOOK_TIMEOUT_MS);
      } catch (error) {
        console.error(app?.output().slice(-4000));
        throw error;
      }
      return { post: created.ms, latency: arrived - t0, afterResponse: arrived - answered };
    };

    phase = performance.now();
    const warmups: number[] = [];
    for (let i = 0; i < WARMUP; i++) {
      warmups.push((await createCustomer(`warmup-${i}-${Date.now()}`)).latency);
      await sleep(IDLE_GAP_MS);
    }

    const latencies: number[] = [];
    const posts: number[] = [];
    const afterResponses: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const result = await createCustomer(`bench-${i}-${Date.now()}`);
      latencies.push(result.latency);
      posts.push(result.post);
      afterResponses.push(result.afterResponse);
      await sleep(IDLE_GAP_MS);
    }
    const measuredIn = (performance.now() - phase) / 1000;

    const latency = summary(latencies);
    const api = summary(posts);
    const row = (name: string, s: ReturnType<typeof summary>) =>
      `${name.padEnd(44)}${ms(s.p50).padStart(9)}${ms(s.p95).padStart(9)}${ms(s.max).padStart(9)}${ms(s.min).padStart(9)}${ms(s.mean).padStart(9)}`;
    console.log("");
    console.log(`Latency in ms over ${EVENTS} sequential customers (${IDLE_GAP_MS} ms idle between them), measured in ${measuredIn.toFixed(1)} s:`);
    const header = `${"".padEnd(44)}${"p50".padStart(9)}${"p95".padStart(9)}${"max".padStart(9)}${"min".padStart(9)}${"mean".padStart(9)}`;
    console.log(header);
    console.log("─".repeat(header.length));
    console.log(row("event → webhook received (POST start → hook)", latency));
    console.log(row("POST /api/customers (request → JSON body)", api));
    console.log(row("hook after the POST's response (may be < 0)", summary(afterResponses)));
    console.log("");
    console.log(`  warm-up (first calls after start, not counted): ${warmups.map(ms).join(", ")} ms`);
    const early = afterResponses.filter((value) => value < 0).length;
    console.log(`  webhooks that arrived before the POST's response was read: ${early} of ${EVENTS}`);
    console.log(`  customer.created requests with an invalid signature: ${arrivals.invalidSignatures}`);
    console.log("  (the embedded driver is woken right after the commit; it also polls the database every second)");
    console.log(`Total time ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    process.removeListener("SIGINT", interrupt);
    process.removeListener("SIGTERM", interrupt);
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
