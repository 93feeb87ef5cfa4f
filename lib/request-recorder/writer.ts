import { getTableColumns, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { requestLogs } from "@/db/schema";
import { isDatabaseUnavailable } from "@/db/errors";
import { HOUR_MS, realNow } from "@/lib/time";
import { config } from "@/lib/config";
import { log, safeError } from "@/lib/log";
import { ensurePartitions, maintainPartitions, utcDay } from "./partitions";

/** A row as the writer takes it: every column given (the batch's JSON has no defaults). */
export type RequestLogInsert = Required<typeof requestLogs.$inferInsert> & { created: Date };

/** The table's columns, from the drizzle schema: name, record type (without collation), row key. */
const COLUMNS = Object.entries(getTableColumns(requestLogs)).map(([key, column]) => ({
  key: key as keyof RequestLogInsert,
  name: column.name,
  type: column.getSQLType().replace(/\s+collate\s+.*$/i, ""),
}));
const COLUMN_LIST = sql.raw(COLUMNS.map(({ name }) => `"${name}"`).join(", "));
const RECORD_TYPE = sql.raw(COLUMNS.map(({ name, type }) => `"${name}" ${type}`).join(", "));

/**
 * One INSERT of constant text per batch, the rows as one JSON parameter unpacked by
 * `jsonb_to_recordset`: drizzle's multi-row VALUES binds 21 parameters a row and costs this process
 * about 8× the CPU per row (85 against 10 µs, measured), CPU the requests being logged need.
 */
export function insertBatch(batch: RequestLogInsert[]) {
  const records = batch.map((row) => Object.fromEntries(COLUMNS.map(({ key, name }) => [name, row[key]])));
  return sql`insert into request_logs (${COLUMN_LIST})
    select ${COLUMN_LIST} from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(${RECORD_TYPE})`;
}

/** Rows held while the database is away; past this the oldest are dropped (and counted in the log). */
const MAX_BUFFERED = 50_000;

/**
 * The request log's writer: rows wait in memory and are written in batches, one multi-row INSERT
 * each, off the request's path. A batch goes when it is full (`REQUEST_LOG_BATCH_SIZE`) or when its
 * oldest row has waited `REQUEST_LOG_FLUSH_MS`; a clean shutdown writes what is left
 * (`flushRequestLogs`, from instrumentation-node.ts). A crash loses at most the rows of the last
 * interval (docs/request-logs.md, "What a crash loses"). One flush runs at a time per process.
 */
export class RequestLogWriter {
  private buffer: RequestLogInsert[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly knownDays = new Set<string>();
  private maintainedAt = 0;
  private dropped = 0;

  constructor(private readonly settings: { batchSize: number; flushMs: number; retentionDays: number }) {}

  add(row: RequestLogInsert): void {
    this.buffer.push(row);
    if (this.buffer.length > MAX_BUFFERED) {
      this.dropped += this.buffer.length - MAX_BUFFERED;
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    }
    if (this.buffer.length >= this.settings.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.settings.flushMs).unref();
  }

  /** Rows waiting in memory (what a crash now would lose). */
  get pending(): number {
    return this.buffer.length;
  }

  /** Writes everything buffered; resolves when the buffer is empty or the database refused. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing ??= this.writeAll().finally(() => {
      this.flushing = null;
      if (this.buffer.length > 0) this.timer ??= setTimeout(() => void this.flush(), this.settings.flushMs).unref();
    });
    return this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.settings.batchSize);
      try {
        await this.write(batch);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          // Kept for the next interval, in order, ahead of what came since.
          this.buffer.unshift(...batch);
          log().warn({ rows: this.buffer.length, err: safeError(error) }, "request log: database unavailable, rows kept in memory");
        } else {
          log().error({ rows: batch.length, err: safeError(error) }, "request log: batch dropped");
        }
        return;
      }
    }
    if (this.dropped > 0) {
      log().warn({ rows: this.dropped }, "request log: rows dropped while the database was unavailable");
      this.dropped = 0;
    }
  }

  private async write(batch: RequestLogInsert[]): Promise<void> {
    const db = await getDb();
    const now = realNow();
    if (now.getTime() - this.maintainedAt >= HOUR_MS) {
      const dropped = await maintainPartitions(db, now, this.settings.retentionDays);
      if (dropped.length > 0) log().info({ days: dropped }, "request log: expired partitions dropped");
      this.maintainedAt = now.getTime();
      this.knownDays.clear();
    }
    const days = new Set(batch.map((row) => utcDay(row.created)));
    const missing = [...days].filter((day) => !this.knownDays.has(day));
    if (missing.length > 0) {
      await ensurePartitions(db, missing);
      for (const day of missing) this.knownDays.add(day);
    }
    await db.execute(insertBatch(batch));
  }
}

const WRITER = Symbol.for("billing-service.request-log-writer");
type GlobalWithWriter = typeof globalThis & { [WRITER]?: RequestLogWriter | null };

/** The process's writer (one however often Next.js bundles this module), or null with REQUEST_LOG=off. */
export function requestLogWriter(): RequestLogWriter | null {
  const store = globalThis as GlobalWithWriter;
  if (store[WRITER] === undefined) {
    const settings = config().requestLog;
    store[WRITER] = settings.enabled ? new RequestLogWriter(settings) : null;
  }
  return store[WRITER];
}

/** Writes every buffered row: the clean shutdown's last step. */
export async function flushRequestLogs(): Promise<void> {
  await requestLogWriter()?.flush();
}
