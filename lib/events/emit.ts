import { sql } from "drizzle-orm";

import { eventDeliveries, events, webhookEndpoints } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { newId } from "@/lib/ids";
import { rowsOf } from "@/lib/rows";
import { countUpsert } from "./counts";
import { sequenceUpsert } from "./sequence";
import type { ChangeTransaction } from "./transaction";
import { aggregateTypeOf, EVENT_FORMAT_VERSION, type EventType } from "./catalogue";
import { realNow } from "@/lib/time";
import { redactText } from "@/lib/log";
import { enqueueForEvent } from "@/lib/email-outbox/enqueue";

export type EntityState = Record<string, unknown>;

export type EmitInput = {
  type: EventType;
  aggregateId: string;
  /** Full entity state after the change. */
  data: EntityState;
  /** Full entity state before the change; null when the entity is created. */
  previousData: EntityState | null;
  metadata?: Record<string, unknown>;
  /** An endpoint that does not receive this event: a webhook endpoint's own audit events (docs/rules/security-and-audit.md, "Request log"). */
  skipEndpointId?: string;
};

/** The event's metadata: a portal session's changes name the session (the actor is the customer). */
function metadataOf(ctx: ServiceContext, input: EmitInput): Record<string, unknown> {
  const portalSession = ctx.actor.type === "customer" ? ctx.actor.portalSession : undefined;
  const metadata = portalSession === undefined ? (input.metadata ?? {}) : { portal_session: portalSession, ...input.metadata };
  // What a request brought (a user agent, an address) goes through the one scanner (lib/log.ts).
  return Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, typeof value === "string" ? redactText(value) : value]));
}

export type EmittedEvent = { id: string; deliveryIds: string[] };

/**
 * Delivery ids made ahead for the single statement: one per subscribed endpoint up to this many.
 * An account with more matching endpoints gets the rest in a second statement (same transaction).
 */
const DELIVERY_IDS_AHEAD = 8;

/**
 * The only way an event is written. It takes the open transaction of the state change (see
 * withChangeTransaction; the type admits no other), so the change, its event and one delivery record per subscribed endpoint
 * commit together or not at all.
 *
 * One statement (one round trip, its text constant, so prepared once per connection): the
 * aggregate's next sequence number (lib/events/sequence.ts), the event, its counters
 * (lib/events/counts.ts), the subscribed endpoints and a delivery row for each.
 */
export async function emitEvent(tx: ChangeTransaction, ctx: ServiceContext, input: EmitInput): Promise<EmittedEvent> {
  const eventId = newId("event");
  const created = ctx.now();
  // Delivery runs on real time, whatever the account's (test) clock says: due at once.
  const dueAt = realNow().toISOString();
  const ids = Array.from({ length: DELIVERY_IDS_AHEAD }, () => newId("eventDelivery"));
  const result = await tx.execute(sql`
    with next_sequence as (${sequenceUpsert(ctx.accountId, input.aggregateId)}),
    event as (
      insert into ${events} (id, account_id, type, aggregate_type, aggregate_id, data, previous_data, metadata,
        correlation_id, request_id, version, sequence, created, actor_type, actor_id)
      select ${eventId}, ${ctx.accountId}, ${input.type}, ${aggregateTypeOf(input.type)}, ${input.aggregateId},
        ${JSON.stringify(input.data)}::jsonb, ${input.previousData === null ? null : JSON.stringify(input.previousData)}::jsonb,
        ${JSON.stringify(metadataOf(ctx, input))}::jsonb, ${ctx.correlationId === null ? null : redactText(ctx.correlationId)}, ${ctx.requestId ?? null}, ${EVENT_FORMAT_VERSION}::int, last_sequence,
        ${created.toISOString()}::timestamptz, ${ctx.actor.type}::actor_type, ${ctx.actor.id}
      from next_sequence
      returning id
    ),
    counted as (${countUpsert(tx, { accountId: ctx.accountId, type: input.type, created })}),
    matched as (
      select id, row_number() over (order by id) as n from ${webhookEndpoints}
      where account_id = ${ctx.accountId} and enabled and deleted_at is null and events && array[${input.type}, '*']::text[]
        and id is distinct from ${input.skipEndpointId ?? null}::text
    ),
    delivery as (
      insert into ${eventDeliveries} (id, account_id, event_id, webhook_endpoint_id, due_at, created)
      select (string_to_array(${ids.join(",")}, ','))[matched.n], ${ctx.accountId}, event.id, matched.id,
        ${dueAt}::timestamptz, ${dueAt}::timestamptz
      from matched, event where matched.n <= ${DELIVERY_IDS_AHEAD}
      returning id, webhook_endpoint_id
    )
    select matched.id as endpoint_id, delivery.id as delivery_id
    from matched left join delivery on delivery.webhook_endpoint_id = matched.id
    order by matched.n`);
  const matched = rowsOf<{ endpoint_id: string; delivery_id: string | null }>(result);
  const deliveryIds = matched.map((row) => row.delivery_id ?? newId("eventDelivery"));
  const rest = matched.flatMap((row, i) => (row.delivery_id === null ? [{ endpointId: row.endpoint_id, id: deliveryIds[i]! }] : []));
  if (rest.length > 0) {
    const now = new Date(dueAt);
    await tx.insert(eventDeliveries).values(
      rest.map((row) => ({ id: row.id, accountId: ctx.accountId, eventId, webhookEndpointId: row.endpointId, dueAt: now, created: now })),
    );
  }
  if (deliveryIds.length > 0) tx.deliverAfterCommit(deliveryIds);
  // The email this event causes (a receipt for invoice.paid, …) commits with it, or neither does.
  if (await enqueueForEvent(tx, ctx, { id: eventId, type: input.type, aggregateId: input.aggregateId, data: input.data })) tx.emailsAfterCommit();
  return { id: eventId, deliveryIds };
}
