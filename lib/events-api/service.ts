import { and, asc, eq, getTableColumns, gte, lt, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { firstRowBytes, getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { eventDeliveries, events, webhookEndpoints } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { eventTotal } from "@/lib/events/counts";
import type { EventFilters } from "./schema";
import type { DeliveryRow, EventRow } from "./serialize";

/** The where clause of the events list (also used by bench/events-list.ts). */
export function eventFilterConditions(accountId: string, filters: EventFilters): SQL {
  const conditions: SQL[] = [eq(events.accountId, accountId)];
  if (filters.event_id) conditions.push(eq(events.id, filters.event_id));
  if (filters.aggregate_id) conditions.push(eq(events.aggregateId, filters.aggregate_id));
  if (filters.aggregate_type) conditions.push(eq(events.aggregateType, filters.aggregate_type));
  if (filters.event_type) conditions.push(eq(events.type, filters.event_type));
  return and(...conditions)!;
}

/** Newest first; the time-ordered id breaks ties between events of the same instant. */
export async function listEvents({
  ctx,
  input,
}: Verb<{ filters: EventFilters; page: Page }>): Promise<{ rows: EventRow[] } & PageInfo> {
  const where = eventFilterConditions(ctx.accountId, input.filters);
  return pageOf(events, where, input.page, {
    total: (range, exact) => eventTotal(ctx.accountId, input.filters, range, exact),
  });
}

export async function getEvent({ ctx, input }: Verb<{ id: string }>): Promise<EventRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(events)
    .where(and(eq(events.accountId, ctx.accountId), eq(events.id, input.id)));
  if (!row) throw notFound("event", input.id);
  return row;
}

/** One delivery per subscribed endpoint, in the order they were fanned out. */
export async function listEventDeliveries({ ctx, input }: Verb<{ eventId: string }>): Promise<DeliveryRow[]> {
  const db = await getDb();
  return db
    .select({ ...getTableColumns(eventDeliveries), webhookEndpointUrl: webhookEndpoints.url })
    .from(eventDeliveries)
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, eventDeliveries.webhookEndpointId))
    .where(and(eq(eventDeliveries.accountId, ctx.accountId), eq(eventDeliveries.eventId, input.eventId)))
    .orderBy(asc(eventDeliveries.created), asc(eventDeliveries.id));
}

export async function getEventWithDeliveries({
  ctx,
  input,
}: Verb<{ id: string }>): Promise<{ event: EventRow; deliveries: DeliveryRow[] }> {
  const event = await getEvent({ ctx, input });
  const deliveries = await listEventDeliveries({ ctx, input: { eventId: event.id } });
  return { event, deliveries };
}

/** The API's `created` format in SQL: ISO 8601 in UTC with milliseconds (what `toISOString()` writes; the column keeps milliseconds). */
const ISO_MS = `YYYY-MM-DD"T"HH24:MI:SS.MS"Z"`;

/** A JSON text of `value` (text, number or null) as PostgreSQL writes it; `null` for SQL NULL. */
const jsonOf = (value: SQL | AnyColumn) => sql`coalesce(to_json(${value})::text, 'null')`;

/**
 * One event as the NDJSON line of the events list's item (serializeEvent: the same keys in the
 * same order, the same values), written by PostgreSQL: `data`, `previous_data` and `metadata`
 * are the stored JSON as jsonb writes it (the same values; spaces after `:` and `,`).
 */
const EVENT_LINE = sql.join(
  [
    sql`'{"id":'`, jsonOf(events.id),
    sql`',"type":'`, jsonOf(events.type),
    sql`',"aggregate_type":'`, jsonOf(events.aggregateType),
    sql`',"aggregate_id":'`, jsonOf(events.aggregateId),
    sql`',"data":'`, sql`${events.data}::text`,
    sql`',"previous_data":'`, sql`coalesce(${events.previousData}::text, 'null')`,
    sql`',"metadata":'`, sql`${events.metadata}::text`,
    sql`',"correlation_id":'`, jsonOf(events.correlationId),
    sql`',"request_id":'`, jsonOf(events.requestId),
    sql`',"version":'`, sql`${events.version}::text`,
    sql`',"sequence":'`, sql`${events.sequence}::text`,
    sql`',"created":"'`, sql`to_char(${events.created} at time zone 'UTC', ${sql.raw(`'${ISO_MS}'`)})`,
    sql`'","actor_type":'`, jsonOf(sql`${events.actorType}::text`),
    sql`',"actor_id":'`, jsonOf(events.actorId),
    sql`'}'`,
  ],
  sql` || `,
);

/** A batch of an events export (lib/api/export.ts's EncodedBatch, which this layer may not import): its bytes, each record ending in its delimiter; how many rows; the keyset after its last. */
export type EventText = { bytes: Buffer; rows: number; after: string | undefined };

/**
 * The events CSV's cells by column name (the columns themselves are declared once, beside the
 * export operation): each becomes a column of the batch's subquery, so a JSON column is turned
 * into text once a row. `number` cells are digits only (never quoted nor formula-escaped, as
 * csv-stringify leaves numbers); `plain` cells are written by the service alone in an alphabet
 * without quotes, commas, line breaks or a formula's first character (its ids, the catalogue's
 * names, ISO times), so they are not tested for either: two regular expressions a cell less for
 * PostgreSQL, which writes the CSV of 50,000 events a second. Any text a client can choose is `text`.
 */
const EVENT_CSV_CELLS: Record<string, { value: SQL | AnyColumn; kind: "text" | "number" | "plain" }> = {
  id: { value: events.id, kind: "plain" },
  type: { value: events.type, kind: "plain" },
  created: { value: sql`to_char(${events.created} at time zone 'UTC', ${sql.raw(`'${ISO_MS}'`)})`, kind: "plain" },
  aggregate_type: { value: events.aggregateType, kind: "plain" },
  aggregate_id: { value: events.aggregateId, kind: "text" },
  sequence: { value: sql`${events.sequence}::text`, kind: "number" },
  version: { value: sql`${events.version}::text`, kind: "number" },
  actor_type: { value: sql`${events.actorType}::text`, kind: "plain" },
  actor_id: { value: events.actorId, kind: "text" },
  request_id: { value: events.requestId, kind: "text" },
  correlation_id: { value: events.correlationId, kind: "text" },
  // A JSON null is an empty cell, as csv-stringify writes null.
  data: { value: sql`nullif(${events.data}, 'null'::jsonb)::text`, kind: "text" },
  previous_data: { value: sql`nullif(${events.previousData}, 'null'::jsonb)::text`, kind: "text" },
  metadata: { value: sql`nullif(${events.metadata}, 'null'::jsonb)::text`, kind: "text" },
};

/** A text starting with one of these gets a leading `'` in CSV: csv-stringify's `escape_formulas`, full-width forms included. */
const FORMULA_START = sql.raw(`'^[-=+@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20]'`);

/**
 * A text cell of CSV as csvText (lib/api/export.ts) writes it through csv-stringify: null is
 * empty; a formula's start gets a leading `'`; a cell holding a quote, a comma or a line break is
 * quoted, its quotes doubled. tests/api/exports.test.ts checks it against csv-stringify, string
 * for string. `cell` names a column of the batch subquery (cheap to name several times).
 */
export function csvCell(cell: SQL): SQL {
  const escaped = sql`(case when ${cell} ~ ${FORMULA_START} then '''' || ${cell} else ${cell} end)`;
  return sql`(case when ${cell} is null then '' when ${cell} ~ '[",\r\n]' then '"' || replace(${escaped}, '"', '""') || '"' else ${escaped} end)`;
}

/**
 * A batch of the events export as text written by PostgreSQL (docs/api.md, "Exports"): the events
 * list's items for `filters` and `range`, newest first, `limit` of them after the keyset `after`
 * (the `created|id` of the previous batch's last), joined there into one text. The server then
 * handles one string per batch, not an object per event (docs/performance.md, "Exports").
 * - `ndjson`: each line serializeEvent's item (its keys, in its order);
 * - `csv`: the records (CRLF-terminated, no header) of the named columns, cells as csvText writes them.
 * tests/api/exports.test.ts parses both and compares them with the list's items.
 */
export async function exportEventText({
  ctx,
  input,
}: Verb<{
  format: { ndjson: true } | { csv: readonly string[] };
  filters: EventFilters;
  range: { gte?: Date; lt?: Date };
  after: string | undefined;
  limit: number;
}>): Promise<EventText> {
  let keyset: SQL | undefined;
  if (input.after !== undefined) {
    const bar = input.after.indexOf("|");
    keyset = sql`(${events.created}, ${events.id}) < (${input.after.slice(0, bar)}::timestamptz, ${input.after.slice(bar + 1)})`;
  }
  const condition = and(
    eventFilterConditions(ctx.accountId, input.filters),
    input.range.gte ? gte(events.created, input.range.gte) : undefined,
    input.range.lt ? lt(events.created, input.range.lt) : undefined,
    keyset,
  );
  const csv = "csv" in input.format ? input.format.csv : null;
  let selected: SQL = sql`${EVENT_LINE} as line`;
  let record: SQL = sql`line`;
  if (csv) {
    const cells = csv.map((name, index) => {
      const cell = EVENT_CSV_CELLS[name];
      if (!cell) throw new Error(`events CSV: no cell for the column ${name}`);
      return { column: sql.identifier(`c${index}`), ...cell };
    });
    // The subquery names its cells c0, c1, …; its LIMIT keeps it a subquery, so each is computed once.
    selected = sql.join(cells.map((cell) => sql`${cell.value} as ${cell.column}`), sql`, `);
    record = sql.join(
      cells.map((cell) => (cell.kind === "text" ? csvCell(sql`${cell.column}`) : sql`coalesce(${cell.column}, '')`)),
      sql` || ',' || `,
    );
  }
  const delimiter = csv ? "\r\n" : "\n";
  // The batch's text comes back as bytes (firstRowBytes): it only passes through to the client.
  const batch = await firstRowBytes(sql`
      select string_agg(${record}, ${delimiter} order by created desc, id desc) || ${delimiter} as text, count(*) as rows,
        to_char(min(created) at time zone 'UTC', ${sql.raw(`'${ISO_MS}'`)}) as last_created,
        (array_agg(id order by created, id))[1] as last_id
      from (
        select ${events.created} as created, ${events.id} as id, ${selected}
        from ${events} where ${condition} order by ${events.created} desc, ${events.id} desc limit ${input.limit}
      ) batch`);
  const [text, count, lastCreated, lastId] = batch ?? [];
  const rows = Number(count?.toString() ?? 0);
  return {
    bytes: text ?? Buffer.alloc(0),
    rows,
    // A full batch may have more after it (an empty batch then ends the export).
    after: rows === input.limit ? `${lastCreated!.toString()}|${lastId!.toString()}` : undefined,
  };
}
