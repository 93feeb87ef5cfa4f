import { and, asc, desc, eq, getTableColumns, gte, inArray, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { deliveryAttempts, eventDeliveries, events, webhookEndpoints } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import type { DeliveryRow } from "@/lib/events-api/serialize";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { attemptDelivery } from "./attempt";
import { getWebhookEndpoint } from "./endpoints";
import { WILDCARD } from "./schema";
import type { DeliveryAttemptRow } from "./serialize";
import { realNow } from "@/lib/time";

const BULK_RETRY_LIMIT = 100;
const BULK_RETRY_CONCURRENCY = 8;

const deliveryColumns = { ...getTableColumns(eventDeliveries), webhookEndpointUrl: webhookEndpoints.url };

export async function getDelivery({ ctx, input }: Verb<{ id: string }>): Promise<DeliveryRow> {
  const db = await getDb();
  const [row] = await db
    .select(deliveryColumns)
    .from(eventDeliveries)
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, eventDeliveries.webhookEndpointId))
    .where(and(eq(eventDeliveries.accountId, ctx.accountId), eq(eventDeliveries.id, input.id)));
  if (!row) throw notFound("delivery", input.id);
  return row;
}

/** Every attempt of a delivery, first to last. */
export async function listDeliveryAttempts({ ctx, input }: Verb<{ deliveryId: string }>): Promise<DeliveryAttemptRow[]> {
  await getDelivery({ ctx, input: { id: input.deliveryId } });
  const db = await getDb();
  return db
    .select()
    .from(deliveryAttempts)
    .where(and(eq(deliveryAttempts.accountId, ctx.accountId), eq(deliveryAttempts.deliveryId, input.deliveryId)))
    .orderBy(asc(deliveryAttempts.attemptNumber), asc(deliveryAttempts.id));
}

export async function listEndpointDeliveries({
  ctx,
  input,
}: Verb<{ endpointId: string; status?: DeliveryRow["status"]; page: Page }>): Promise<{ rows: DeliveryRow[] } & PageInfo> {
  const endpoint = await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  // The endpoint is the account's (just read): its deliveries are scoped by the endpoint alone.
  const list = listQuery("event_deliveries", input.endpointId, { status: input.status || undefined });
  const { rows, ...info } = await pageOf(list.table, list.where, input.page, list.options);
  // Every delivery of the list is the endpoint's own.
  return { rows: rows.map((row) => ({ ...row, webhookEndpointUrl: endpoint.url })), ...info };
}

/**
 * One new attempt, now, of a permanently failed delivery (DESIGN.md decision 10), through the same
 * attempt function as the schedule. Any other state is a 409.
 */
export async function retryDelivery({ ctx, input }: Verb<{ id: string }>): Promise<DeliveryRow> {
  const before = await getDelivery({ ctx, input });
  const outcome = await attemptDelivery(before.id, { mode: "manual" });
  if (outcome.result === "skipped" && outcome.reason === "endpoint_deleted") {
    throw new ServiceError("conflict", "The delivery's webhook endpoint was deleted; it cannot be retried.");
  }
  if (outcome.result === "skipped") {
    const state =
      outcome.reason === "busy" ? "being attempted right now" : before.dueAt ? `${before.status}, with an attempt scheduled` : before.status;
    throw new ServiceError(
      "conflict",
      `Only a permanently failed delivery can be retried manually; this one is ${state}.`,
    );
  }
  return getDelivery({ ctx, input });
}

/** Retries an endpoint's permanently failed deliveries created since a time, 100 per call. */
export async function retryFailedDeliveries({
  ctx,
  input,
}: Verb<{ endpointId: string; since: Date }>): Promise<{ retried: number; delivered: number; failed: number; has_more: boolean }> {
  await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  const db = await getDb();
  const failed = await db
    .select({ id: eventDeliveries.id })
    .from(eventDeliveries)
    .where(
      and(
        eq(eventDeliveries.accountId, ctx.accountId),
        eq(eventDeliveries.webhookEndpointId, input.endpointId),
        eq(eventDeliveries.status, "failed"),
        isNull(eventDeliveries.dueAt),
        gte(eventDeliveries.created, input.since),
      ),
    )
    .orderBy(asc(eventDeliveries.created), asc(eventDeliveries.id))
    .limit(BULK_RETRY_LIMIT + 1);
  const batch = failed.slice(0, BULK_RETRY_LIMIT);
  const outcomes = [];
  for (let i = 0; i < batch.length; i += BULK_RETRY_CONCURRENCY) {
    const slice = batch.slice(i, i + BULK_RETRY_CONCURRENCY);
    outcomes.push(...(await Promise.all(slice.map(({ id }) => attemptDelivery(id, { mode: "manual" })))));
  }
  const attempted = outcomes.filter((outcome) => outcome.result !== "skipped");
  return {
    retried: attempted.length,
    delivered: attempted.filter((outcome) => outcome.result === "delivered").length,
    failed: attempted.filter((outcome) => outcome.result !== "delivered").length,
    has_more: failed.length > BULK_RETRY_LIMIT,
  };
}

/**
 * Sends the account's newest event the endpoint subscribes to as a new delivery to it, signed and
 * retried like any other: a real event, so the receiver can be tested end to end.
 */
export async function sendTestEvent({ ctx, input }: Verb<{ endpointId: string }>) {
  const endpoint = await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  const db = await getDb();
  const subscribed = endpoint.events.includes(WILDCARD) ? undefined : inArray(events.type, endpoint.events);
  const [event] = await db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.accountId, ctx.accountId), subscribed))
    .orderBy(desc(events.created), desc(events.id))
    .limit(1);
  if (!event) {
    throw new ServiceError("conflict", "There is no event of a subscribed type to send yet: create a customer first.");
  }
  return deliverEventTo({ ctx, input: { eventId: event.id, endpointId: endpoint.id } });
}

/**
 * A new delivery of an existing event to one endpoint, due at once. The row and its hand-off to
 * the sender commit together: no delivery is lost or sent twice.
 */
export async function deliverEventTo({ ctx, input }: Verb<{ eventId: string; endpointId: string }>): Promise<DeliveryRow> {
  const deliveryId = newId("eventDelivery");
  await withChangeTransaction(async (tx) => {
    const now = realNow();
    await tx.insert(eventDeliveries).values({
      id: deliveryId,
      accountId: ctx.accountId,
      eventId: input.eventId,
      webhookEndpointId: input.endpointId,
      dueAt: now,
      created: now,
    });
    tx.deliverAfterCommit([deliveryId]);
  });
  return getDelivery({ ctx, input: { id: deliveryId } });
}
