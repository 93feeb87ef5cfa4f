import { and, count, eq, gte, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { eventDeliveries } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { getWebhookEndpoint } from "./endpoints";
import { DeliveryLag, endpointLag } from "./lag";
import { HOUR_MS, realNow } from "@/lib/time";

export const HEALTH_WINDOW_HOURS = 24;

/** Where deliveries stand: `retrying` failed with a retry scheduled; `failed` is permanent. */
export const DeliverySummary = z
  .object({
    total: z.number().int(),
    delivered: z.number().int(),
    pending: z.number().int().meta({ description: "Pending or being attempted." }),
    retrying: z.number().int().meta({ description: "Failed, with a retry scheduled." }),
    failed: z.number().int().meta({ description: "Failed permanently." }),
  })
  .meta({ id: "DeliverySummary" });
export type DeliverySummaryObject = z.infer<typeof DeliverySummary>;

export const DeliveryHealth = DeliverySummary.extend({
  window_hours: z.number().int(),
  success_rate: z.number().nullable().meta({ description: "delivered / (delivered + failed); null without finished deliveries." }),
}).meta({ id: "DeliveryHealth" });

export const EndpointDeliveryHealth = DeliveryHealth.extend({
  lag: DeliveryLag.meta({ description: "Right now: how far behind the endpoint's deliveries are, and their recent throughput." }),
}).meta({ id: "EndpointDeliveryHealth" });

const bucket = sql<string>`case
  when ${eventDeliveries.status} = 'delivered' then 'delivered'
  when ${eventDeliveries.status} = 'failed' and ${eventDeliveries.dueAt} is null then 'failed'
  when ${eventDeliveries.status} = 'failed' then 'retrying'
  else 'pending' end`;

function emptySummary(): DeliverySummaryObject {
  return { total: 0, delivered: 0, pending: 0, retrying: 0, failed: 0 };
}

async function summarize(where: SQL, groupByEvent: boolean) {
  const db = await getDb();
  return db
    .select({ eventId: groupByEvent ? eventDeliveries.eventId : sql<string>`''`, bucket, n: count() })
    .from(eventDeliveries)
    .where(where)
    .groupBy(...(groupByEvent ? [eventDeliveries.eventId, bucket] : [bucket]));
}

/** Per event of a page: how its deliveries stand (the events list's `expand=delivery_summary`). */
export async function deliverySummaries({
  ctx,
  input,
}: Verb<{ eventIds: string[] }>): Promise<Map<string, DeliverySummaryObject>> {
  const result = new Map(input.eventIds.map((id) => [id, emptySummary()]));
  if (input.eventIds.length === 0) return result;
  const rows = await summarize(
    and(eq(eventDeliveries.accountId, ctx.accountId), inArray(eventDeliveries.eventId, input.eventIds))!,
    true,
  );
  for (const row of rows) {
    const summary = result.get(row.eventId)!;
    summary[row.bucket as keyof Omit<DeliverySummaryObject, "total">] += row.n;
    summary.total += row.n;
  }
  return result;
}

/** Deliveries of the last 24 hours, for the account or one endpoint. */
export async function deliveryHealth({
  ctx,
  input,
}: Verb<{ endpointId?: string }>): Promise<z.infer<typeof DeliveryHealth>> {
  if (input.endpointId) await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  const since = new Date(realNow().getTime() - HEALTH_WINDOW_HOURS * HOUR_MS);
  const rows = await summarize(
    and(
      eq(eventDeliveries.accountId, ctx.accountId),
      gte(eventDeliveries.created, since),
      input.endpointId ? eq(eventDeliveries.webhookEndpointId, input.endpointId) : undefined,
    )!,
    false,
  );
  const summary = emptySummary();
  for (const row of rows) {
    summary[row.bucket as keyof Omit<DeliverySummaryObject, "total">] += row.n;
    summary.total += row.n;
  }
  const finished = summary.delivered + summary.failed;
  return { ...summary, window_hours: HEALTH_WINDOW_HOURS, success_rate: finished ? summary.delivered / finished : null };
}

/** An endpoint's health: its last 24 hours, and its lag and throughput right now. */
export async function endpointHealth({
  ctx,
  input,
}: Verb<{ endpointId: string }>): Promise<z.infer<typeof EndpointDeliveryHealth>> {
  const [health, lag] = await Promise.all([deliveryHealth({ ctx, input }), endpointLag(input.endpointId)]);
  return { ...health, lag };
}
