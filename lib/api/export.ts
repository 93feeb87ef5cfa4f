import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import type { ServiceContext } from "@/lib/context";
import { log, safeError } from "@/lib/log";
import { handle, type OperationHandler } from "./handler";
import { EXPORT_FORMATS, ExportBody, releaseOnceWritten, type ExportFormat } from "./export-body";
import { defineOperation, type Operation } from "./operation";

export { EXPORT_FORMATS, ExportBody, type ExportFormat };

/**
 * Streamed exports of a list (docs/api.md, "Exports"): `GET …/{list}/export?format=csv|ndjson`
 * walks the list in its own order (newest first) by keyset batches of EXPORT_BATCH, through the
 * list's own verb and serializer, so an export holds exactly the list's items for the same
 * filters. The stream is pulled: the next batch is read only when the client has taken the last
 * one, and a client that goes away cancels it (no further query).
 */

/** Rows per batch: one keyset page of the list (`starting_after` the previous batch's last item). */
export const EXPORT_BATCH = 1000;

/**
 * Rows per batch of an export its domain encodes in the database (ExportEncoded): one string per
 * batch, whatever its rows, so a larger batch costs fewer queries and socket writes, not more
 * objects (about 2 MB of events NDJSON).
 */
export const EXPORT_TEXT_BATCH = 5000;

/** The paging parameters an export walks by itself: the rest of a list's query are its filters. */
const PAGING = { limit: true, offset: true, starting_after: true, ending_before: true } as const;

/**
 * An export's query: its list's (filters, `created[gte]` / `created[lt]`, `expand`) without the
 * paging parameters, plus `format`.
 */
export function exportQuery<Q extends z.ZodObject>(listQuery: Q) {
  // Only the paging parameters the list has (a list paged by `limit` alone has no cursor): zod
  // refuses to omit a key its object lacks.
  const paging = Object.fromEntries(Object.keys(PAGING).filter((key) => key in listQuery.shape).map((key) => [key, true]));
  return listQuery.omit(paging as Record<keyof typeof PAGING, true>).extend({
    format: z
      .enum(EXPORT_FORMATS, { error: "format must be csv or ndjson." })
      .meta({ description: "`csv` (RFC 4180, a header row, the columns of docs/api.md \"Exports\") or `ndjson` (one list item per line)." }),
  });
}

/** The body of an export operation (its OpenAPI response: text/csv and application/x-ndjson). */
export const ExportFile = z
  .custom<ExportBody>((value) => value instanceof ExportBody)
  .meta({ id: "ExportFile", override: { type: "string", description: "CSV with a header row, or one JSON object per line." } });

/** A cell as an export column yields it: objects and arrays are written as their JSON. */
type Cell = string | number | boolean | null | undefined | object;

export type ExportColumn<T> = { name: string; value: (item: T) => Cell };

/**
 * A resource's CSV columns, declared once (docs/api.md lists them): each named field of its API
 * object, in order. `lines`: one row per line, each carrying the item's columns then the line's
 * (prefixed `line_`); an item without lines is one row with empty line columns.
 */
export type ExportColumns<T> = {
  columns: readonly ExportColumn<T>[];
  lines?: { of: (item: T) => readonly unknown[]; columns: readonly ExportColumn<never>[] };
};

/** Columns that are the object's own fields, by name. */
export function fieldColumns<T>(names: readonly (keyof T & string)[], prefix = ""): ExportColumn<T>[] {
  return names.map((name) => ({ name: prefix + name, value: (item: T) => item[name] as Cell }));
}

/** The CSV header of a resource's columns. */
export function csvHeader(table: ExportColumns<never>): string[] {
  return [...table.columns, ...(table.lines?.columns ?? [])].map((column) => column.name);
}

function cellOf(value: Cell): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

function csvRows<T>(items: readonly T[], table: ExportColumns<T>): (string | number | boolean | null)[][] {
  const rows: (string | number | boolean | null)[][] = [];
  for (const item of items) {
    const own = table.columns.map((column) => cellOf(column.value(item)));
    if (!table.lines) {
      rows.push(own);
      continue;
    }
    const lineColumns = table.lines.columns as readonly ExportColumn<unknown>[];
    const lines = table.lines.of(item);
    if (lines.length === 0) rows.push([...own, ...lineColumns.map(() => null)]);
    for (const line of lines) rows.push([...own, ...lineColumns.map((column) => cellOf(column.value(line)))]);
  }
  return rows;
}

/**
 * RFC 4180 through csv-stringify: CRLF records, fields quoted when they hold a quote, a comma or a
 * line break. A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
 * leading `'` (formula injection: a spreadsheet would run it); numbers stay numbers.
 */
export function csvText(rows: readonly (readonly unknown[])[]): string {
  return stringify(rows as unknown[][], {
    record_delimiter: "\r\n",
    escape_formulas: true,
    // A line break of any kind is quoted (csv-stringify quotes only the record delimiter itself).
    quoted_match: /[\r\n]/,
    cast: { boolean: (value) => (value ? "true" : "false") },
  });
}

/**
 * One batch of a list: its items in the list's order, and whether more follow. `after`: the keyset
 * the next batch starts after, for a list whose items have no unique `id` to be it (usage events:
 * their time, receipt and identifier); by default the last item's `id`.
 */
export type ExportBatch<T> = { items: readonly T[]; has_more: boolean } & (T extends { id: string } ? { after?: string } : { after: string | undefined });

/** Where the batch after `batch` starts. */
function nextKey<T>(batch: ExportBatch<T>): string | undefined {
  if (!batch.has_more) return undefined;
  if (batch.after !== undefined) return batch.after;
  const last = batch.items.at(-1) as { id?: string } | undefined;
  return last?.id;
}

/**
 * A batch of an export already encoded: its bytes, how many items it holds, and where the next
 * starts (none: the last). The bytes are the batch's own, held by nothing else: the stream
 * releases their memory once the socket has written them (releaseOnceWritten).
 */
export type EncodedBatch = { bytes: Uint8Array; rows: number; after: string | undefined };

/** A batch's bytes as the stream sends them. */
type ReadBatch = { bytes: Uint8Array; rows: number; after: string | undefined };

/**
 * Reads a list's batches and encodes each at once: only its bytes wait for the client, its rows
 * and objects die young (kept across a slow client's reads, they would fill the old generation).
 */
function encodingReader<T>(format: ExportFormat, table: ExportColumns<T>, next: (after: string | undefined) => Promise<ExportBatch<T>>) {
  let header = format === "csv";
  const encode = (items: readonly T[]): string => {
    if (format === "ndjson") return items.map((item) => JSON.stringify(item) + "\n").join("");
    const rows = csvRows(items, table);
    if (header) {
      header = false;
      rows.unshift(csvHeader(table as ExportColumns<never>));
    }
    return rows.length === 0 ? "" : csvText(rows);
  };
  return async (after: string | undefined): Promise<ReadBatch> => {
    const batch = await next(after);
    return { bytes: Buffer.from(encode(batch.items)), rows: batch.items.length, after: nextKey(batch) };
  };
}

/**
 * The stream of an export: the first batch is read before the answer starts (its failure is a
 * problem answer, like any list's), then one batch per pull.
 */
async function exportStream(
  read: (after: string | undefined) => Promise<ReadBatch>,
  signal: AbortSignal,
  context: { requestId: string },
): Promise<ReadableStream<Uint8Array>> {
  let pending: Awaited<ReturnType<typeof read>> | null = await read(undefined);
  let cancelled = false;
  let done = false;
  let sent = 0;
  // A client that goes away (its connection dropped: the request's signal, or the body cancelled)
  // ends the export: no batch is read after it. The log says how far it got.
  const cancel = () => {
    if (cancelled || done) return;
    cancelled = true;
    pending = null;
    log().info({ request_id: context.requestId, rows: sent }, "export cancelled: the client went away");
  };
  signal.addEventListener("abort", cancel, { once: true });
  return new ReadableStream<Uint8Array>(
    {
      // One batch per pull: the stream asks for more only once its queue (one chunk) is taken.
      async pull(controller) {
        try {
          const current = pending;
          pending = null;
          if (current === null || cancelled) {
            done = !cancelled;
            if (!cancelled) controller.close();
            return;
          }
          if (current.bytes.length > 0) controller.enqueue(releaseOnceWritten(current.bytes));
          sent += current.rows;
          if (current.after === undefined) {
            done = true;
            controller.close();
            return;
          }
          const following = await read(current.after);
          if (!cancelled) pending = following;
        } catch (error) {
          // After the first byte a failure can only end the stream early: the client sees a
          // truncated body (no final newline / record), the log has the cause.
          log().error({ request_id: context.requestId, err: safeError(error) }, "export failed mid-stream");
          controller.error(error);
        }
      },
      cancel,
    },
    { highWaterMark: 1 },
  );
}

/**
 * An export that its domain encodes itself, for the filters it can (undefined: the list's own
 * batches, encoded here): each batch's text straight from the database (the events NDJSON and
 * CSV records: lib/events-api/service.ts), without an object per item. A CSV's header is added here.
 */
export type ExportEncoded<L> = (args: {
  ctx: ServiceContext;
  format: ExportFormat;
  /** The CSV's column names, as declared beside the operation (the header this module writes). */
  columns: readonly string[];
  query: Omit<L, keyof ExportPaging>;
  params: Record<string, string>;
}) =>
  | ((after: string | undefined) => Promise<EncodedBatch>)
  | undefined;

/**
 * The handler of an export operation: `page` is the list's own page function (the list handler's
 * verb and serializer), called with the export's filters and `limit` EXPORT_BATCH after the
 * previous batch's last item; `encoded`, when it answers a reader for the format and filters,
 * reads the batches instead.
 */
export function handleExport<T, L, P extends string = string>(
  operation: ExportOperation<T, P>,
  resource: string,
  page: (args: { ctx: ServiceContext; query: L; params: Record<string, string> }) => Promise<ExportBatch<T>>,
  encoded?: ExportEncoded<L>,
): OperationHandler {
  return handle(operation, async ({ ctx, query, params, request, requestId }) => {
    const { format, ...filters } = query as { format: ExportFormat };
    // The export's query is its list's without paging (defineExportOperation): with this batch's
    // paging it is the list's query again.
    const next = (after: string | undefined) => {
      const paging: ExportPaging = { limit: EXPORT_BATCH, offset: 0, starting_after: after, exportBatch: true };
      return page({ ctx, query: { ...filters, ...paging } as L, params });
    };
    const columns = csvHeader(operation.exportColumns as ExportColumns<never>);
    const text = encoded?.({ ctx, format, columns, query: filters as Omit<L, keyof ExportPaging>, params });
    // An encoded CSV's records come without the header: the first batch gets it from the declaration.
    const header = Buffer.from(format === "csv" ? csvText([columns]) : "");
    const read = text
      ? async (after: string | undefined): Promise<ReadBatch> => {
          const batch = await text(after);
          return { bytes: after === undefined ? Buffer.concat([header, batch.bytes]) : batch.bytes, rows: batch.rows, after: batch.after };
        }
      : encodingReader(format, operation.exportColumns, next);
    const stream = await exportStream(read, request.signal, { requestId });
    return new ExportBody(format, `${resource}.${format}`, stream);
  });
}

/** What an export adds to its list's query for each batch. */
export type ExportPaging = { limit: number; offset: 0; starting_after: string | undefined; ending_before?: undefined; exportBatch: true };

/** An export operation: the operation, and the CSV columns of its resource. */
export type ExportOperation<T, P extends string = string> = Operation<z.ZodType, undefined, typeof ExportFile, "secret", P> & { exportColumns: ExportColumns<T> };

/**
 * The export operation of a list operation: `GET <list path>/export` (and its unscoped path), the
 * list's query without paging plus `format`, a streamed CSV / NDJSON answer whose CSV columns
 * (declared once, beside the operation) its OpenAPI description lists.
 */
export function defineExportOperation<Q extends z.ZodObject, const P extends string, T>(
  list: Operation<Q, undefined, z.ZodType, "secret", P>,
  names: { operationId: string; plural: string; columns: ExportColumns<T> },
) {
  const operation = defineOperation({
    operationId: names.operationId,
    method: "GET",
    path: `${list.path}/export` as `${P}/export`,
    ...(list.unscopedPath ? { unscopedPath: `${list.unscopedPath}/export` } : {}),
    summary: `Export ${names.plural}`,
    description:
      `Every item the list (\`${list.operationId}\`) would page through for the same filters, in its order (newest first), ` +
      "streamed: NDJSON (each line one item of the list, as the list serializes it) or CSV (RFC 4180, a header row; " +
      "objects and arrays as JSON; a text cell starting with `=`, `+`, `-`, `@`, tab or CR prefixed with `'`). " +
      `CSV columns: ${csvHeader(names.columns as ExportColumns<never>).map((name) => `\`${name}\``).join(", ")}` +
      (names.columns.lines ? " (one row per line, each with its item's columns)." : ".") +
      " Gzip with `Accept-Encoding: gzip`. A bad filter is a 400 problem before the first byte.",
    tag: list.tag,
    access: "secret",
    // An export reads what its list reads: a restricted key needs the list's `read` permission.
    ...(list.permission ? { permission: list.permission } : {}),
    query: exportQuery(list.query!),
    response: { status: 200, description: `The ${names.plural}, as a file.`, schema: ExportFile, export: true },
  });
  return Object.assign(operation, { exportColumns: names.columns });
}
