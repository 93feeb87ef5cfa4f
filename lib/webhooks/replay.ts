import { and, asc, eq, gte, inArray, lt, ne, or, gt, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { eventDeliveries, events } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { DateTime } from "@/lib/schemas";
import { getWebhookEndpoint } from "./endpoints";
import { WILDCARD } from "./schema";
import { realNow } from "@/lib/time";

/** Events replayed per call: one transaction of delivery rows, small enough to answer quickly. */
export const REPLAY_LIMIT = 1000;

export const ReplayInput = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).meta({ description: "Replay events created at or after this time." }),
    until: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: "…and before this time (default: now, on the account's clock)." }),
    starting_after: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "Continue a replay: `next_starting_after` of the previous answer." }),
  })
  .meta({ id: "WebhookReplayInput" });

export const ReplayResult = z
  .object({
    object: z.literal("webhook_replay"),
    replayed: z.number().int().meta({ description: `New deliveries made by this call (at most ${REPLAY_LIMIT}).` }),
    since: DateTime,
    until: DateTime,
    has_more: z.boolean().meta({ description: "More events of the window remain: call again with `starting_after`." }),
    next_starting_after: z.string().nullable().meta({ description: "The last event replayed, to pass as `starting_after`." }),
  })
  .meta({ id: "WebhookReplayResult" });

/**
 * A new delivery, to this endpoint, of every event of the window it subscribes to, delivered
 * ones included, oldest first, REPLAY_LIMIT per call. Each is a new delivery of the same event,
 * so receivers see the same `webhook-id` and skip what they already processed.
 */
export async function replayWindow({
  ctx,
  input,
}: Verb<{ endpointId: string; since: Date; until?: Date; startingAfter?: string }>): Promise<z.input<typeof ReplayResult>> {
  const endpoint = await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  if (!endpoint.enabled) {
    throw new ServiceError("conflict", "The endpoint is disabled: enable it before replaying events to it.");
  }
  const until = input.until ?? ctx.now();
  if (until <= input.since) throw validationFailed([{ field: "until", message: "Must be after since." }]);
  const db = await getDb();
  const conditions: (SQL | undefined)[] = [
    eq(events.accountId, ctx.accountId),
    gte(events.created, input.since),
    lt(events.created, until),
    endpoint.events.includes(WILDCARD) ? undefined : inArray(events.type, endpoint.events),
    // As when they were emitted: an endpoint is not sent the audit events about itself.
    ne(events.aggregateId, endpoint.id),
  ];
  if (input.startingAfter) {
    const [from] = await db
      .select({ created: events.created })
      .from(events)
      .where(and(eq(events.accountId, ctx.accountId), eq(events.id, input.startingAfter)));
    if (!from) throw validationFailed([{ field: "starting_after", message: "No such event in this account." }]);
    conditions.push(or(gt(events.created, from.created), and(eq(events.created, from.created), gt(events.id, input.startingAfter))));
  }
  const window = await db
    .select({ id: events.id })
    .from(events)
    .where(and(...conditions))
    .orderBy(asc(events.created), asc(events.id))
    .limit(REPLAY_LIMIT + 1);
  const batch = window.slice(0, REPLAY_LIMIT);
  if (batch.length > 0) {
    await withChangeTransaction(async (tx) => {
      const now = realNow();
      const rows = batch.map((event) => ({
        id: newId("eventDelivery"),
        accountId: ctx.accountId,
        eventId: event.id,
        webhookEndpointId: endpoint.id,
        dueAt: now,
        created: now,
      }));
      await tx.insert(eventDeliveries).values(rows);
      tx.deliverAfterCommit(rows.map((row) => row.id));
    });
  }
  return {
    object: "webhook_replay",
    replayed: batch.length,
    since: input.since.toISOString(),
    until: until.toISOString(),
    has_more: window.length > REPLAY_LIMIT,
    next_starting_after: batch.at(-1)?.id ?? null,
  };
}
