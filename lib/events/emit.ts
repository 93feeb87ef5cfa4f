import { and, arrayOverlaps, eq, isNull } from "drizzle-orm";
import type { Transaction } from "@/db/client";
import { eventDeliveries, events, webhookEndpoints } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { newId } from "@/lib/ids";
import { countEvent } from "./counts";
import { nextSequence } from "./sequence";
import { afterCommitDeliver } from "./transaction";
import { aggregateTypeOf, EVENT_FORMAT_VERSION, type EventType } from "./catalogue";

export type EntityState = Record<string, unknown>;

export type EmitInput = {
  type: EventType;
  aggregateId: string;
  /** Full entity state after the change. */
  data: EntityState;
  /** Full entity state before the change; null when the entity is created. */
  previousData: EntityState | null;
  metadata?: Record<string, unknown>;
};

export type EmittedEvent = { id: string; deliveryIds: string[] };

/**
 * The only way an event is written. It takes the open transaction of the state change (see
 * inChangeTransaction), so the change, its event and one delivery record per subscribed endpoint
 * commit together or not at all.
 */
export async function emitEvent(tx: Transaction, ctx: ServiceContext, input: EmitInput): Promise<EmittedEvent> {
  const eventId = newId("event");
  const sequence = await nextSequence(tx, ctx.accountId, input.aggregateId);
  const created = ctx.now();
  await tx.insert(events).values({
    id: eventId,
    accountId: ctx.accountId,
    type: input.type,
    aggregateType: aggregateTypeOf(input.type),
    aggregateId: input.aggregateId,
    data: input.data,
    previousData: input.previousData,
    metadata: input.metadata ?? {},
    correlationId: ctx.correlationId,
    version: EVENT_FORMAT_VERSION,
    sequence,
    created,
    actorType: ctx.actor.type,
    actorId: ctx.actor.id,
  });
  await countEvent(tx, { accountId: ctx.accountId, type: input.type, created });

  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.accountId, ctx.accountId),
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
        arrayOverlaps(webhookEndpoints.events, [input.type, "*"]),
      ),
    )
    .orderBy(webhookEndpoints.id);
  const deliveryIds = endpoints.map(() => newId("eventDelivery"));
  if (endpoints.length > 0) {
    const now = new Date();
    await tx.insert(eventDeliveries).values(
      endpoints.map((endpoint, i) => ({
        id: deliveryIds[i]!,
        accountId: ctx.accountId,
        eventId,
        webhookEndpointId: endpoint.id,
        dueAt: now,
        created: now,
      })),
    );
    afterCommitDeliver(tx, deliveryIds);
  }
  return { id: eventId, deliveryIds };
}
