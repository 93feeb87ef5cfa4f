/**
 * `npm run --silent logs -- --base-url <https://…/api> --token <st_…> [--status 4xx] [--operation createCustomer] [--method POST] [--path <path prefix>]`
 *
 * Streams the account's API requests as they happen, one line each: time, status, method, path,
 * duration, request id (docs/request-logs.md, "The logs tail"). It polls GET /request-logs; rows are
 * written in batches and a slow request's row can land after a faster, newer one, so each poll
 * re-reads the last LAG_MS before the newest row seen and prints only the ids it has not printed.
 * After a lost connection it retries with backoff and resumes from the newest row it printed; ^C
 * stops it (exit 0).
 */
import { parseArgs } from "node:util";

type Row = { id: string; created: string; status: number; method: string; path: string; query: string | null; duration_ms: number; error_code: string | null };
type Page = { items: Row[]; has_more: boolean };

const USAGE =
  "Usage: npm run --silent logs -- --base-url <https://…/api> --token <st_…> [--status 404|4xx|5xx] [--operation <operationId>] [--method GET|POST|…] [--path <path prefix>] [--interval-ms 1000]";

/** How far behind the newest row seen each poll looks again: the writer's interval and then some. */
const LAG_MS = 5_000;
const MAX_BACKOFF_MS = 10_000;

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    "base-url": { type: "string" },
    token: { type: "string" },
    status: { type: "string" },
    operation: { type: "string" },
    method: { type: "string" },
    path: { type: "string" },
    "interval-ms": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const rawBase = (args["base-url"] ?? fail("--base-url is required.")).replace(/\/+$/, "");
// The API root, whether the app's origin or its API root was given.
const apiBase = rawBase.endsWith("/api") ? rawBase : `${rawBase}/api`;
const token = args.token ?? fail("--token is required (a secret token, st_…).");
if (args.status !== undefined && !/^[1-5](\d\d|xx)$/.test(args.status)) fail("--status takes a status (404) or a class (4xx, 5xx).");
const intervalMs = Number(args["interval-ms"] ?? 1000);
if (!Number.isInteger(intervalMs) || intervalMs < 100) fail("--interval-ms must be an integer of at least 100.");

const filters = new URLSearchParams();
for (const name of ["status", "operation", "method", "path"] as const) {
  const value = args[name];
  if (value !== undefined) filters.set(name, value);
}

const controller = new AbortController();
let stopping = false;
process.on("SIGINT", () => {
  if (stopping) process.exit(130);
  stopping = true;
  controller.abort();
  console.error("\nStopped.");
  process.exit(0);
});

class HttpError extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

async function page(query: URLSearchParams): Promise<Page> {
  const response = await fetch(`${apiBase}/request-logs?${query}`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  const text = await response.text();
  if (!response.ok) throw new HttpError(response.status, text);
  return JSON.parse(text) as Page;
}

/** Every row created at or after `since`, newest first (paged through with `starting_after`). */
async function rowsSince(since: Date): Promise<Row[]> {
  const rows: Row[] = [];
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams(filters);
    query.set("limit", "100");
    query.set("created[gte]", since.toISOString());
    if (after) query.set("starting_after", after);
    const { items, has_more } = await page(query);
    rows.push(...items);
    if (!has_more || items.length === 0) return rows;
    after = items.at(-1)!.id;
  }
}

const useColor = process.stdout.isTTY === true;
function colored(status: number): string {
  const text = String(status);
  if (!useColor) return text;
  const code = status >= 500 ? 31 : status >= 400 ? 33 : 32;
  return `\u001b[${code}m${text}\u001b[0m`;
}

function line(row: Row): string {
  const path = row.query ? `${row.path}?${row.query}` : row.path;
  const error = row.error_code ? ` ${row.error_code}` : "";
  return `${row.created}  ${colored(row.status)}  ${row.method.padEnd(6)} ${path}  ${row.duration_ms}ms  ${row.id}${error}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  // Printed ids, with their creation time, kept while they are inside the look-back window.
  const printed = new Map<string, number>();
  let newest = Date.now();
  let first = true;
  let failures = 0;
  console.error(`Tailing ${apiBase}/request-logs${filters.size ? `?${filters}` : ""} (^C to quit)`);
  while (!stopping) {
    try {
      const rows = await rowsSince(new Date(newest - LAG_MS));
      if (failures > 0) console.error("Reconnected.");
      failures = 0;
      for (const row of rows.reverse()) {
        if (printed.has(row.id)) continue;
        const created = Date.parse(row.created);
        printed.set(row.id, created);
        newest = Math.max(newest, created);
        // The first read only marks what happened before the tail started.
        if (!first || created >= startedAt) console.log(line(row));
      }
      first = false;
      for (const [id, created] of printed) if (created < newest - 2 * LAG_MS) printed.delete(id);
      await sleep(intervalMs);
    } catch (error) {
      if (stopping) return;
      if (error instanceof HttpError && (error.status === 401 || error.status === 403 || error.status === 400)) {
        console.error(`The API refused the request: ${error.message}`);
        process.exit(1);
      }
      failures += 1;
      const wait = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 5));
      console.error(`Connection lost (${error instanceof Error ? error.message : String(error)}); retrying in ${wait} ms…`);
      await sleep(wait);
    }
  }
}

const startedAt = Date.now();
void main();
