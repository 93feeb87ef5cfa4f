import { operationPath } from "@/lib/operation-paths";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { createGunzip } from "node:zlib";
import { parse } from "csv-parse";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POOL_NAMES } from "@/db/client";
import { loadSyntheticEvents, withEventIndexesRebuilt } from "@/db/synthetic-events";
import { isolatedDatabase } from "../helpers/isolated-database";
import { peakResidentBytes, residentBytes } from "../helpers/memory";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";

// A 1,000,000-event export streams in bounded memory; a client that stops reading pauses it (the
// server reads no more batches); a client that goes away ends it. Own app and database: the
// server's memory and the database's sessions are this file's alone.

const ROWS = 1_000_000;
const MB = 1024 * 1024;
/** The bound on the server's memory growth while it streams an export of any size (docs/performance.md). */
const GROWTH_BOUND = 100 * MB;
/**
 * The server's old-space heap in this file (--max-old-space-size). `npm run test:coverage` runs an
 * unminified build, whose code alone filled 192 MB before the app answered: there it has 384 MB
 * (the RSS growth bound is the same).
 */
const HEAP_MB = process.env.APP_COVERAGE_DIR ? 384 : 192;

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let app: RunningApp;
let sql: postgres.Sql;

beforeAll(async () => {
  database = await isolatedDatabase("exports-stream");
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  // Set-based bulk insert, ANALYZEd (db/synthetic-events.ts, as `npm run events:load`), two batches
  // at once (the pool's two connections), the events' secondary indexes built once after it: the
  // file's own database, which no app writes to yet.
  await withEventIndexesRebuilt(sql, () => loadSyntheticEvents(sql, { accountId: database.accountId, events: ROWS, connections: 2 }));
  // A heap of 192 MB: an export that kept its rows (1 M events are about 400 MB of NDJSON) could
  // not finish in it. Left to itself V8 lets a busy heap grow lazily (docs/performance.md).
  // Only this file's app: the worker goes on to other files' apps after it.
  const nodeArgs = process.env.APP_NODE_ARGS;
  process.env.APP_NODE_ARGS = `${nodeArgs ?? ""} --max-old-space-size=${HEAP_MB}`;
  try {
    app = await startApp({ DATABASE_URL: database.url });
  } finally {
    if (nodeArgs === undefined) delete process.env.APP_NODE_ARGS;
    else process.env.APP_NODE_ARGS = nodeArgs;
  }
}, 600_000);

afterAll(async () => {
  await app?.stop();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** A GET of the events export, the response handed over as soon as its headers come. */
function openExport(query: string, headers: Record<string, string> = {}): Promise<{ response: IncomingMessage; abort: () => void }> {
  const url = new URL(`${app.baseUrl}${operationPath("exportEvents", { account_id: database.accountId })}${query}`);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { Authorization: `Bearer ${database.token}`, ...headers } }, (response) =>
      resolve({ response, abort: () => request.destroy() }),
    );
    request.on("error", reject);
    request.end();
  });
}

/**
 * A batch's query (exportEventText), by words near its start: pg_stat_activity keeps only a
 * query's first 1,024 bytes (track_activity_query_size), and its `from "events"` comes after them.
 */
const BATCH_QUERY = "%as last_created%";

/** The app's sessions running or last running an events batch: how many run now, and when the last one started. */
async function exportQueries(): Promise<{ active: number; last: string | null }> {
  const [row] = await sql<{ active: number; last: Date | null }[]>`
    select (count(*) filter (where state = 'active'))::int as active, max(query_start) as last
    from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and query like ${BATCH_QUERY}`;
  return { active: row!.active, last: row!.last?.toISOString() ?? null };
}

/** The shortest quiet that counts as stopped (queriesStopped). */
const QUIET_FLOOR_MS = 2_000;

/**
 * Until the export's queries have stopped: none running, and none started for a while. How long is
 * measured, not assumed: on a loaded machine the server takes longer between batches (encoding one,
 * writing it), and a fixed quiet window (300 ms) once took such a gap for the pause. So: at least
 * QUIET_FLOOR_MS since the last batch started, and four times the longest gap seen between two
 * batches' starts (PostgreSQL's query_start: a batch the sampling missed only lengthens a gap).
 */
async function queriesStopped(): Promise<{ active: number; last: string | null }> {
  let previous: string | null = null;
  let longestGap = 0;
  return eventually(
    async () => {
      const now = await exportQueries();
      if (previous !== null && now.last !== null && now.last !== previous) longestGap = Math.max(longestGap, Date.parse(now.last) - Date.parse(previous));
      previous = now.last;
      return now;
    },
    // No batch's session left at all (null: the reader's connection ended with the export) is stopped too.
    (now) => now.active === 0 && (now.last === null || Date.now() - Date.parse(now.last) >= Math.max(QUIET_FLOOR_MS, 4 * longestGap)),
    120_000,
  );
}

/** Reads an NDJSON export to its end: how many items, all in the list's order (newest first, each once). */
async function countNdjson(response: IncomingMessage): Promise<number> {
  let rows = 0;
  let rest = "";
  let previous: { created: string; id: string } | null = null;
  response.setEncoding("utf8");
  for await (const chunk of response as AsyncIterable<string>) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      const { created, id } = JSON.parse(line) as { created: string; id: string };
      if (previous) expect(created < previous.created || (created === previous.created && id < previous.id)).toBe(true);
      previous = { created, id };
      rows++;
    }
  }
  expect(rest).toBe("");
  return rows;
}

describe("a 1,000,000-event export", () => {
  it("streams NDJSON and gzipped CSV with the server's memory bounded", async () => {
    // Warm: the route's code loaded, a first small export served.
    const warm = await openExport("?format=ndjson&aggregate_type=coupon");
    expect(warm.response.statusCode).toBe(200);
    await countNdjson(warm.response);
    const baseline = residentBytes(app.pid);

    const ndjson = await peakResidentBytes(app.pid, async () => {
      const { response } = await openExport("?format=ndjson");
      expect(response.statusCode).toBe(200);
      return countNdjson(response);
    });
    expect(ndjson.result).toBe(ROWS);
    expect(ndjson.peak - baseline).toBeLessThan(GROWTH_BOUND);

    const csv = await peakResidentBytes(app.pid, async () => {
      const { response } = await openExport("?format=csv", { "Accept-Encoding": "gzip" });
      expect(response.headers["content-encoding"]).toBe("gzip");
      let records = 0;
      for await (const _record of response.pipe(createGunzip()).pipe(parse())) records++;
      return records;
    });
    expect(csv.result).toBe(ROWS + 1); // the header
    expect(csv.peak - baseline).toBeLessThan(GROWTH_BOUND);
  }, 600_000);

  it("pauses while the client stops reading: no query runs, memory stays flat; then finishes", async () => {
    // One entity type's events (about an eighth of the million, some 50 MB of NDJSON): far more than
    // the sockets' buffers hold, so the server must pause, at an eighth of the full export's cost.
    const [row] = await sql<{ count: number }[]>`select count(*)::int as count from events where aggregate_type = 'customer'`;
    const count = row!.count;
    expect(count).toBeGreaterThan(50_000);
    const { response } = await openExport("?format=ndjson&aggregate_type=customer");
    expect(response.statusCode).toBe(200);
    response.pause();
    // The server fills the socket's buffers, then reads no more batches.
    const paused = await queriesStopped();
    expect(paused.last).not.toBeNull();
    // Its batches were read by the export reader's own pool (db/export-reader.ts), not the API's.
    const readers = await sql<{ name: string }[]>`
      select distinct application_name as name from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query like ${BATCH_QUERY}`;
    expect(readers.map(({ name }) => name)).toEqual([POOL_NAMES.exports]);
    const memory = residentBytes(app.pid);
    // Over a further second and a half: still no batch read, no memory taken.
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await exportQueries()).toEqual({ active: 0, last: paused.last });
      expect(residentBytes(app.pid) - memory).toBeLessThan(20 * MB);
    }
    // Reading again, the export carries on where it was, to the end.
    response.resume();
    expect(await countNdjson(response)).toBe(count);
  }, 600_000);

  it("ends at once when the client goes away", async () => {
    const { response, abort } = await openExport("?format=csv");
    expect(response.statusCode).toBe(200);
    const requestId = String(response.headers["x-request-id"]);
    await new Promise<void>((resolve) => response.once("data", () => resolve()));
    abort();
    // The server logs the cancellation, far from the end, and reads no batch after it.
    const line = await eventually(
      async () => app.output().split("\n").find((entry) => entry.includes(requestId) && entry.includes("export cancelled")),
      (found) => found !== undefined,
    );
    expect(JSON.parse(line!).rows).toBeLessThan(ROWS);
    await queriesStopped();
    // And the app serves on.
    const next = await openExport("?format=ndjson&aggregate_type=coupon");
    expect(next.response.statusCode).toBe(200);
    expect(await countNdjson(next.response)).toBeGreaterThan(0);
  }, 600_000);
});
