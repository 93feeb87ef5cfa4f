import { and, asc, desc, eq, gt, gte, isNotNull, isNull, lt, type SQL } from "drizzle-orm";
import { getDb } from "@/db/client";
import { events, requestLogs } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import type { RequestLogListInput } from "./schema";

export type RequestLogRow = typeof requestLogs.$inferSelect;
export type CausedEventRow = typeof events.$inferSelect;

/** Above every character of a URL path (which is percent-encoded ASCII): the end of a prefix's range. */
const AFTER_PATH_CHARACTERS = "\u007f";

/** The filters of `GET /request-logs`, each a condition that one index of the table serves (db/schema/request-logs.ts). */
function filters(accountId: string, input: RequestLogListInput): SQL[] {
  const conditions: SQL[] = [eq(requestLogs.accountId, accountId)];
  const { status } = input;
  if (status?.endsWith("xx")) conditions.push(eq(requestLogs.statusClass, Number(status[0])));
  else if (status) conditions.push(eq(requestLogs.status, Number(status)));
  if (input.method) conditions.push(eq(requestLogs.method, input.method));
  if (input.operation) conditions.push(eq(requestLogs.operationId, input.operation));
  if (input.path) {
    // A range on the "C"-collated path: the index serves it whatever the prefix holds (`%`, `_`).
    conditions.push(gte(requestLogs.path, input.path), lt(requestLogs.path, input.path + AFTER_PATH_CHARACTERS));
  }
  if (input.token) conditions.push(eq(requestLogs.tokenId, input.token));
  // Mirrors sourceOf (serialize.ts): a user id marks a dashboard session's request.
  if (input.source === "dashboard") conditions.push(isNotNull(requestLogs.userId));
  if (input.source === "api") conditions.push(isNull(requestLogs.userId));
  if (input.request_id) conditions.push(eq(requestLogs.id, input.request_id));
  if (input.idempotency_key) conditions.push(eq(requestLogs.idempotencyKey, input.idempotency_key));
  if (input["created[gte]"]) conditions.push(gte(requestLogs.created, input["created[gte]"]));
  if (input["created[lt]"]) conditions.push(lt(requestLogs.created, input["created[lt]"]));
  return conditions;
}

/**
 * A page of the account's requests, newest first (`id desc`: request ids are time-ordered and
 * compared byte by byte). The cursors are request ids and need not be in the filtered list, so a
 * tail can poll `ending_before=<newest seen>` whatever it filters. No total: counting millions of
 * rows per page would cost more than the page (docs/rules/security-and-audit.md, "Request log").
 */
export async function listRequestLogs({ ctx, input }: Verb<RequestLogListInput>): Promise<{ rows: RequestLogRow[]; hasMore: boolean }> {
  const db = await getDb();
  const conditions = filters(ctx.accountId, input);
  if (input.starting_after && input.ending_before) {
    throw new ServiceError("bad_request", "Pass either starting_after or ending_before, not both.", {
      errors: [{ field: "ending_before", message: "Cannot be combined with starting_after." }],
    });
  }
  if (input.starting_after) conditions.push(lt(requestLogs.id, input.starting_after));
  if (input.ending_before) conditions.push(gt(requestLogs.id, input.ending_before));
  const newerFirst = !input.ending_before;
  const rows = await db
    .select()
    .from(requestLogs)
    .where(and(...conditions))
    .orderBy(newerFirst ? desc(requestLogs.id) : asc(requestLogs.id))
    .limit(input.limit + 1);
  const hasMore = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  return { rows: newerFirst ? page : page.reverse(), hasMore };
}

/** One of the account's requests with the events it caused, oldest first. */
export async function getRequestLog({
  ctx,
  input,
}: Verb<{ id: string }>): Promise<{ row: RequestLogRow; events: CausedEventRow[] }> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.accountId, ctx.accountId), eq(requestLogs.id, input.id)))
    .limit(1);
  if (!row) throw notFound("request log", input.id);
  const caused = await db
    .select()
    .from(events)
    .where(and(eq(events.accountId, ctx.accountId), eq(events.requestId, input.id)))
    .orderBy(asc(events.created), asc(events.id));
  return { row, events: caused };
}
