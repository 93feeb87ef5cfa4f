import { z } from "zod";
import { eventDeliveries, events } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { validationFailed } from "@/lib/errors";
import { aggregateTypeOf, EVENT_FORMAT_VERSION, isEventType } from "@/lib/events/catalogue";
import { EventType as EventTypeSchema } from "@/lib/events-api/schema";
import { countEvent } from "@/lib/events/counts";
import { nextSequence } from "@/lib/events/sequence";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { getWebhookEndpoint } from "./endpoints";
import { sampleEvent } from "./samples";
import { realNow } from "@/lib/time";

export const TestEventInput = z
  .strictObject({
    type: EventTypeSchema.optional().meta({
      description:
        "Send a realistic sample event of this catalogue type (marked `\"test\": true` in the payload and `metadata.test` on the event). Without it, the account's newest real event of a subscribed type is sent again.",
    }),
  })
  .meta({ id: "WebhookTestEventInput" });

export const SampleEventInput = z
  .strictObject({
    type: EventTypeSchema.meta({
      description: "The catalogue type of the sample event (the dashboard's \"Send test event\" samples).",
    }),
  })
  .meta({ id: "SampleEventInput" });

/**
 * A sample event of `type`, stored as an event of a fresh sample entity (so it has an id, a
 * sequence of 1 and shows in the endpoint's deliveries) and delivered to the given endpoint only,
 * signed and retried like any other; without an endpoint, to none: the event feed carries it to
 * `npm run listen` (`--trigger`). It is marked so receivers can tell: the payload carries
 * `"test": true`, the event `metadata.test`. Written here rather than by emitEvent because it
 * must not fan out to the account's other endpoints.
 */
export async function sendSampleEvent({
  ctx,
  input,
}: Verb<{ endpointId?: string; type: string }>): Promise<{ eventId: string; deliveryId: string | null }> {
  const { type } = input;
  if (!isEventType(type)) throw validationFailed([{ field: "type", message: `Unknown event type: ${type}.` }]);
  const endpoint = input.endpointId ? await getWebhookEndpoint({ ctx, input: { id: input.endpointId } }) : null;
  const sample = sampleEvent(type, ctx.livemode);
  const deliveryId = endpoint ? newId("eventDelivery") : null;
  const eventId = newId("event");
  await withChangeTransaction(async (tx) => {
    const created = ctx.now();
    await tx.insert(events).values({
      id: eventId,
      accountId: ctx.accountId,
      type,
      aggregateType: aggregateTypeOf(type),
      aggregateId: sample.aggregateId,
      data: sample.data,
      previousData: sample.previousData,
      metadata: { test: true },
      correlationId: ctx.correlationId,
      requestId: ctx.requestId ?? null,
      version: EVENT_FORMAT_VERSION,
      sequence: await nextSequence(tx, ctx.accountId, sample.aggregateId),
      created,
      actorType: ctx.actor.type,
      actorId: ctx.actor.id,
    });
    await countEvent(tx, { accountId: ctx.accountId, type, created });
    if (!endpoint || !deliveryId) return;
    const now = realNow();
    await tx.insert(eventDeliveries).values({
      id: deliveryId,
      accountId: ctx.accountId,
      eventId,
      webhookEndpointId: endpoint.id,
      dueAt: now,
      created: now,
    });
    tx.deliverAfterCommit([deliveryId]);
  });
  return { eventId, deliveryId };
}
