/**
 * `npm run build && npm run bench:request-log -- [--seconds 10] [--rounds 3] [--rows 5000000] [--exact-seconds 60]`
 * (`--rows 0`, `--exact-seconds 0`: without that section)
 *
 * The request log's cost and reads (docs/request-logs.md, figures in docs/performance.md):
 *
 * 1. Throughput cost: two `next start` on one fresh database, `REQUEST_LOG=on` and `off`, loaded
 *    alternately (off, on, off, on, …) for `--seconds` each at 16 connections with
 *    `GET /api/customers/{id}` and `POST /api/customers`, after the floor (`GET /api/health`).
 *    The cost is 1 − on/off of the summed rounds.
 * 2. Exactness: `--exact-seconds` of `POST /api/customers` at 16 connections on a fresh account of
 *    the `on` app; after the writer's interval, the account's rows must equal the requests the load
 *    generator sent (autocannon's count of answered requests).
 * 3. Reads at scale: `--rows` synthetic requests loaded into one account (`npm run logs:load`'s
 *    loader, then ANALYZE), then p50/p99 of `GET /api/request-logs` for every filter, 400 requests
 *    at 2 connections each with random values.
 */
import "./limits";
import os from "node:os";
import autocannon from "autocannon";
import { drizzle } from "drizzle-orm/postgres-js";
import { loadSyntheticRequestLogs } from "@/db/synthetic-request-logs";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { ensurePartitions, utcDay } from "@/lib/request-recorder/partitions";
import { startApp } from "@/tests/helpers/server";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, load, log, option, seeded } from "./http";

const SECONDS = Number(option("seconds", "10"));
const ROUNDS = Number(option("rounds", "3"));
const ROWS = Number(option("rows", "5000000"));
const EXACT_SECONDS = Number(option("exact-seconds", "60"));
const loadAverage = () => os.loadavg().map((value) => value.toFixed(1)).join(" ");

async function main(): Promise<void> {
  benchEnvironment();
  console.log(`Request log benchmark, ${new Date().toISOString()}, ${os.cpus().length} cores, load ${loadAverage()}`);
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_request_log");
  try {
    const main = newId("account");
    const noise = newId("account");
    const { token } = await benchAccounts(sql, main, noise);
    const on = await startApp({ DATABASE_URL: url, REQUEST_LOG: "on" });
    closeLater(() => on.stop());
    const off = await startApp({ DATABASE_URL: url, REQUEST_LOG: "off" });
    closeLater(() => off.stop());

    // A customer to read, made through the API.
    const created = await fetch(`${on.baseUrl}/api/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "read@example.com" }),
    });
    const customer = ((await created.json()) as { id: string }).id;
    let counter = 0;
    const rows: [string, (base: string) => Promise<number>][] = [
      ["GET /api/health (floor)", (base) => load(base, token, () => "/api/health", { connections: 16, duration: SECONDS }).then((r) => r.rps)],
      ["GET /api/customers/{id}", (base) => load(base, token, () => `/api/customers/${customer}`, { connections: 16, duration: SECONDS }).then((r) => r.rps)],
      [
        "POST /api/customers",
        (base) =>
          load(base, token, () => "/api/customers", {
            connections: 16,
            duration: SECONDS,
            method: "POST",
            body: () => JSON.stringify({ email: `bench-${++counter}@example.com` }),
          }).then((r) => r.rps),
      ],
    ];

    console.log(`\n1. Throughput, log on against off, ${ROUNDS} alternating rounds of ${SECONDS} s at 16 connections`);
    const totals = new Map<string, { on: number; off: number; ratios: number[] }>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, run] of rows) {
        // Warm both, then alternate which goes first.
        const order = round % 2 === 1 ? [["off", off], ["on", on]] as const : [["on", on], ["off", off]] as const;
        const figures: Record<string, number> = {};
        for (const [label, app] of order) figures[label] = await run(app.baseUrl);
        const total = totals.get(name) ?? { on: 0, off: 0, ratios: [] };
        total.on += figures.on!;
        total.off += figures.off!;
        total.ratios.push(figures.on! / figures.off!);
        totals.set(name, total);
        log(`round ${round} ${name.padEnd(26)} off ${figures.off!.toFixed(0).padStart(5)} req/s  on ${figures.on!.toFixed(0).padStart(5)} req/s  (load ${loadAverage()})`);
      }
    }
    for (const [name, total] of totals) {
      // The median of the rounds' ratios too: one round disturbed by the machine moves the sum.
      const ratios = [...total.ratios].sort((a, b) => a - b);
      const median = ratios.length % 2 ? ratios[(ratios.length - 1) / 2]! : (ratios[ratios.length / 2 - 1]! + ratios[ratios.length / 2]!) / 2;
      log(
        `${name.padEnd(26)} on/off ${(total.on / total.off).toFixed(3)}  cost ${((1 - total.on / total.off) * 100).toFixed(1)} %` +
          `  median round on/off ${median.toFixed(3)} (cost ${((1 - median) * 100).toFixed(1)} %, rounds ${ratios.map((r) => r.toFixed(2)).join(" ")})`,
      );
    }
    if (EXACT_SECONDS > 0) await exactness();
    if (ROWS > 0) await reads();
    async function exactness(): Promise<void> {
      console.log(`\n2. Exactness: ${EXACT_SECONDS} s of POST /api/customers at 16 connections on a fresh account`);
      const exactAccount = newId("account");
      await sql`insert into accounts (id, organization_id, name, livemode) select ${exactAccount}, organization_id, 'Exact', true from accounts where id = ${main}`;
      const exactToken = (await issueToken(drizzle(sql), { accountId: exactAccount, kind: "secret", name: "exact" })).token;
      const result = await autocannon({
        url: on.baseUrl,
        connections: 16,
        duration: EXACT_SECONDS,
        headers: { authorization: `Bearer ${exactToken}`, "content-type": "application/json" },
        requests: [{ method: "POST", setupRequest: (request) => ({ ...request, path: "/api/customers", body: JSON.stringify({ email: `exact-${++counter}@example.com` }) }) }],
      });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const [{ count }] = (await sql`select count(*)::int as count from request_logs where account_id = ${exactAccount}`) as unknown as [{ count: number }];
      log(`sent ${result.requests.sent}, answered ${result.requests.total} (non-2xx ${result.non2xx}, errors ${result.errors}), rows ${count}: ${count === result.requests.sent ? "equal to the requests sent" : "DIFFERENT from the requests sent"} (requests in flight when the load stopped are answered after it counts)  (load ${loadAverage()})`);

    }
    async function reads(): Promise<void> {
      console.log(`\n3. Reads: ${ROWS.toLocaleString("en")} requests in one account`);
      const readAccount = newId("account");
      await sql`insert into accounts (id, organization_id, name, livemode) select ${readAccount}, organization_id, 'Reads', true from accounts where id = ${main}`;
      const readToken = (await issueToken(drizzle(sql), { accountId: readAccount, kind: "secret", name: "reads" })).token;
      const tokenIds = [newId("apiToken"), newId("apiToken"), newId("apiToken")];
      const now = new Date();
      const days: string[] = [];
      for (let day = 30; day >= -2; day--) days.push(utcDay(new Date(now.getTime() - day * 86_400_000)));
      const loading = performance.now();
      const db = drizzle(sql);
      await ensurePartitions(db, days);
      await loadSyntheticRequestLogs(db, { accountId: readAccount, tokenIds, rows: ROWS, days: 30, environment: "prod", now }, () => undefined);
      log(`loaded in ${elapsed(loading)}`);
      const sample = (await sql`select id, idempotency_key from request_logs where account_id = ${readAccount} and idempotency_key is not null limit 200`) as unknown as {
        id: string;
        idempotency_key: string;
      }[];
      const { pick, random } = seeded(42);
      const iso = (msAgo: number) => encodeURIComponent(new Date(now.getTime() - msAgo).toISOString());
      const filters: [string, () => string][] = [
        ["no filter", () => ""],
        ["status=404", () => "status=404"],
        ["status=4xx", () => "status=4xx"],
        ["status=5xx", () => "status=5xx"],
        ["method=DELETE", () => "method=DELETE"],
        ["operation", () => `operation=${pick(["getCustomer", "createCustomer", "deleteCustomer", "listEvents"])}`],
        ["path prefix", () => `path=${encodeURIComponent(pick(["/api/customers", "/api/invoices/in_prod_0000", "/api/events", "/api/payment-intents"]))}`],
        ["token", () => `token=${pick(tokenIds)}`],
        ["request_id", () => `request_id=${pick(sample).id}`],
        ["idempotency_key", () => `idempotency_key=${pick(sample).idempotency_key}`],
        ["created range (1 day, 10 days ago)", () => `created[gte]=${iso(11 * 86_400_000)}&created[lt]=${iso(10 * 86_400_000)}`],
        ["status=5xx & method=POST & token", () => `status=5xx&method=POST&token=${pick(tokenIds)}`],
        ["cursor page (starting_after)", () => `starting_after=${pick(sample).id}`],
        ["5xx, cursor deep in the past", () => `status=5xx&starting_after=${pick(sample).id}`],
      ];
      await load(on.baseUrl, readToken, () => "/api/health", { connections: 2, amount: 100 });
      const floor = await load(on.baseUrl, readToken, () => "/api/health", { connections: 2, amount: 400 });
      log(`${"floor: GET /api/health".padEnd(40)} p50 ${floor.p50} ms  p99 ${floor.p99} ms`);
      for (const [name, query] of filters) {
        const path = () => `/api/request-logs?limit=${random() < 0.5 ? 10 : 50}${query() ? `&${query()}` : ""}`;
        await load(on.baseUrl, readToken, path, { connections: 2, amount: 40 });
        const result = await load(on.baseUrl, readToken, path, { connections: 2, amount: 400 });
        log(`${name.padEnd(40)} p50 ${result.p50} ms  p99 ${result.p99} ms${result.errors ? `  (${result.errors} errors)` : ""}  (load ${loadAverage()})`);
      }
    }
  } finally {
    await cleanUp();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
