import { and, asc, eq, getTableColumns, type SQL } from "drizzle-orm";
import { getDb } from "@/db/client";
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
