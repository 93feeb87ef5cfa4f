/**
 * Benchmark: streamed exports (docs/api.md, "Exports") of a large events list, over HTTP against
 * `next start` (run `npm run build` first).
 *
 *   npm run bench:exports -- [--events 10000000] [--probes 2] [--app-log <file>]
 *
 * Loads N synthetic events into one account (db/synthetic-events.ts, the bulk path of
 * `npm run events:load`, ANALYZEd), then exports them through the production server as NDJSON and
 * as CSV, and reports for each: rows/s (floor 50,000), the server's CPU per row (/proc/<pid>/stat),
 * the server's RSS growth over its peak under the probes alone (and over its RSS at the export's start)
 * (VmRSS of /proc/<pid>/status; bound 100 MB), and the p99 of other requests (GET a customer,
 * `--probes` connections) during the export against the same requests idle (bound 2×). Prints
 * figures, then whether each met its target (exit code 1 when one did not). Uses a fresh database
 * (dropped at the end) on the tests' PostgreSQL (TEST_ADMIN_DATABASE_URL).
 */
import "./limits";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { loadSyntheticEvents, withEventIndexesRebuilt } from "@/db/synthetic-events";
import { newId } from "@/lib/ids";
import { residentBytes } from "@/tests/helpers/memory";
import { processCpuMs, startApp } from "@/tests/helpers/server";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, log, option } from "./http";

const EVENTS = Number(option("events", "10000000").replaceAll("_", ""));
const PROBES = Number(option("probes", "2"));
const APP_LOG = option("app-log", "");
const MIN_ROWS_PER_SECOND = 50_000;
const MAX_GROWTH_MB = 100;
const MAX_P99_RATIO = 2;
const MB = 1024 * 1024;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** GET `url` with `PROBES` connections in a loop until `stop()` says so: each request's latency (ms). */
async function probe(url: string, token: string, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: PROBES }, async () => {
      while (!stop()) {
        const started = performance.now();
        const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`probe: ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

/**
 * The export's client, run in a process of its own: it receives hundreds of megabytes, and in the
 * bench's process its own garbage collections (the received bytes are external memory, as in the
 * server) would stall the probes' event loop and count in their latency, which is the server's to
 * measure. Streams one export to its end, counting its lines (NDJSON items; CSV records, header
 * included, no line breaks in events' cells but JSON's escaped ones); prints one JSON line.
 */
const EXPORT_CLIENT = `
const { request } = require("node:http");
const { performance } = require("node:perf_hooks");
const [url, token] = process.argv.slice(1);
const target = new URL(url);
const started = performance.now();
request({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers: { Authorization: "Bearer " + token } }, (response) => {
  if (response.statusCode !== 200) { console.error("export: " + response.statusCode); process.exit(1); }
  let lines = 0, bytes = 0, firstByteMs = NaN;
  response.on("data", (chunk) => {
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  });
  response.on("end", () => console.log(JSON.stringify({ lines, bytes, firstByteMs })));
}).on("error", (error) => { console.error(error); process.exit(1); }).end();
`;

function exportOnce(url: string, token: string): Promise<{ lines: number; bytes: number; firstByteMs: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["-e", EXPORT_CLIENT, url, token], (error, stdout, stderr) => {
      if (error) reject(new Error(`export client: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as { lines: number; bytes: number; firstByteMs: number });
    });
  });
}

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_exports");
  const failures: string[] = [];
  try {
    const main = newId("account");
    const { token } = await benchAccounts(sql, main, newId("account"));
    let started = performance.now();
    await withEventIndexesRebuilt(sql, () =>
      loadSyntheticEvents(sql, { accountId: main, events: EVENTS, connections: 2, onProgress: (done) => process.stderr.write(`\r  ${done.toLocaleString("en")} events`) }),
    );
    process.stderr.write("\n");
    log(`loaded ${EVENTS.toLocaleString("en")} events (ANALYZEd) in ${elapsed(started)}`);
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    // --app-log <file>: the server's output (e.g. APP_NODE_ARGS=--trace-gc's lines) written there at the end.
    if (APP_LOG) closeLater(async () => writeFileSync(APP_LOG, app.output()));
    const api = `${app.baseUrl}/api/${main}`;
    const customer = await fetch(`${api}/customers`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ email: "probe@example.com" }) });
    const probeUrl = `${api}/customers/${((await customer.json()) as { id: string }).id}`;
    // The loaded events and the probe customer's own.
    const [{ total }] = (await sql`select count(*)::int as total from events where account_id = ${main}`) as unknown as [{ total: number }];

    // Warm-up, then the idle p99 of the probe requests over 10 s.
    await exportOnce(`${api}/events/export?format=ndjson&aggregate_type=coupon`, token);
    let until = performance.now() + 2_000;
    await probe(probeUrl, token, () => performance.now() > until);
    // 10 s: the p99 of about 2,000 requests (5 s gave idle p99s from 14 to 28 ms run to run), and
    // the server's RSS under the probes alone (its heap swings by tens of MB between full
    // collections under steady requests), which the export's growth is measured over.
    let idlePeak = residentBytes(app.pid);
    const idleSampler = setInterval(() => (idlePeak = Math.max(idlePeak, residentBytes(app.pid))), 50);
    until = performance.now() + 10_000;
    const idle = await probe(probeUrl, token, () => performance.now() > until);
    clearInterval(idleSampler);
    const idleP99 = percentile(idle, 99);
    log(`idle: GET customer p50 ${percentile(idle, 50).toFixed(1)} ms, p99 ${idleP99.toFixed(1)} ms (${idle.length} requests, ${PROBES} connections); RSS peak ${(idlePeak / MB).toFixed(1)} MB`);

    console.log("\n| format | rows | seconds | rows/s | server CPU µs/row (rows per CPU-s) | first byte ms | RSS growth MB over the idle peak (over the export's start) | probe p99 idle → during ms | load |\n|---|---|---|---|---|---|---|---|---|");
    for (const format of ["ndjson", "csv"] as const) {
      const baseline = residentBytes(app.pid);
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 50);
      let done = false;
      const load1 = loadavg()[0]!;
      // The server's CPU: rows per CPU-second depend less on what else the machine runs than rows/s
      // (less, not nothing: a run at load 19 doubled it, docs/performance.md).
      const cpuBefore = processCpuMs(app.pid) / 1000;
      started = performance.now();
      const [result, during] = await Promise.all([
        exportOnce(`${api}/events/export?format=${format}`, token).finally(() => (done = true)),
        probe(probeUrl, token, () => done),
      ]);
      const seconds = (performance.now() - started) / 1000;
      // The probes' requests are in it too (2 connections): an upper bound on the export's own.
      const cpu = processCpuMs(app.pid) / 1000 - cpuBefore;
      clearInterval(sampler);
      const rows = format === "csv" ? result.lines - 1 : result.lines;
      const rate = rows / seconds;
      // The export's growth: its peak over the same server's peak under the probes alone (and, as
      // the figure before, over its RSS when the export started).
      const growth = (peak - Math.max(baseline, idlePeak)) / MB;
      const growthFromStart = (peak - baseline) / MB;
      const duringP99 = percentile(during, 99);
      log(`${format}: GET customer during the export p50 ${percentile(during, 50).toFixed(1)} ms, p99 ${duringP99.toFixed(1)} ms (${during.length} requests)`);
      console.log(
        `| ${format} | ${rows.toLocaleString("en")} | ${seconds.toFixed(1)} | **${Math.round(rate).toLocaleString("en")}** | ${((cpu * 1e6) / rows).toFixed(1)} (${Math.round(rows / cpu).toLocaleString("en")}) | ${result.firstByteMs.toFixed(0)} | **${growth.toFixed(1)}** (${growthFromStart.toFixed(1)}) | ${idleP99.toFixed(1)} → **${duringP99.toFixed(1)}** (${(duringP99 / idleP99).toFixed(2)}×) | ${load1.toFixed(1)}→${loadavg()[0]!.toFixed(1)} |`,
      );
      if (rows !== total) failures.push(`${format}: ${rows} rows, not ${total}`);
      if (rate < MIN_ROWS_PER_SECOND) failures.push(`${format}: ${Math.round(rate)} rows/s < ${MIN_ROWS_PER_SECOND}`);
      if (growth >= MAX_GROWTH_MB) failures.push(`${format}: RSS grew ${growth.toFixed(1)} MB ≥ ${MAX_GROWTH_MB}`);
      if (duringP99 > MAX_P99_RATIO * idleP99) failures.push(`${format}: probe p99 ${duringP99.toFixed(1)} ms > ${MAX_P99_RATIO}× idle ${idleP99.toFixed(1)} ms`);
    }
    console.log(`\n${EVENTS.toLocaleString("en")} events; targets: ≥ ${MIN_ROWS_PER_SECOND.toLocaleString("en")} rows/s, RSS growth < ${MAX_GROWTH_MB} MB, probe p99 ≤ ${MAX_P99_RATIO}× idle.`);
    console.log(failures.length === 0 ? "All targets met." : `Missed: ${failures.join("; ")}`);
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

await main();
