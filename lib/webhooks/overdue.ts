import { and, asc, eq, gt, isNotNull, lt, or } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { eventDeliveries, webhookEndpoints } from "@/db/schema";
import type { DeliveryHandOff } from "@/inngest/client";
import { realNow } from "@/lib/time";

/**
 * How far past `due_at` a delivery must be before its driver counts as lost. A live Inngest run
 * wakes from its sleep on time and claims within seconds; ten minutes leaves room for queueing and
 * an expired attempt lease, so a healthy run is almost never handed over twice (and if it is, the
 * claim's attempt fencing makes the duplicate a no-op).
 */
export const OVERDUE_AFTER_MS = 10 * 60_000;

/** Rows per query: one hand-off batch stays a small request. */
export const OVERDUE_BATCH_SIZE = 200;

export type OverdueDelivery = DeliveryHandOff;
/** Keyset position in the `(due_at, id)` order; JSON-serialisable so it can cross Inngest steps. */
export type OverdueCursor = { dueAt: string; id: string };
export type OverduePage = { deliveries: OverdueDelivery[]; next: OverdueCursor | null };

/**
 * Deliveries whose hand-off was lost or whose run died: something is scheduled (`due_at` set)
 * but it fell due more than {@link OVERDUE_AFTER_MS} ago. Each resumes at the attempt after the
 * last one made; an attempt that died mid-flight (expired lease) counts as made.
 *
 * Oldest first, in pages (`after`), so rows that stay overdue cannot hide the rest.
 */
export async function findOverdueDeliveries(
  options: { now?: Date; limit?: number; after?: OverdueCursor | null; executor?: Executor } = {},
): Promise<OverduePage> {
  const db = options.executor ?? (await getDb());
  const limit = Math.min(options.limit ?? OVERDUE_BATCH_SIZE, OVERDUE_BATCH_SIZE);
  const cutoff = new Date((options.now ?? realNow()).getTime() - OVERDUE_AFTER_MS);
  const after = options.after ? { dueAt: new Date(options.after.dueAt), id: options.after.id } : null;
  const rows = await db
    .select({
      id: eventDeliveries.id,
      attemptCount: eventDeliveries.attemptCount,
      dueAt: eventDeliveries.dueAt,
      endpointId: eventDeliveries.webhookEndpointId,
      maxPerSecond: webhookEndpoints.maxDeliveriesPerSecond,
    })
    .from(eventDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, eventDeliveries.webhookEndpointId))
    .where(
      and(
        isNotNull(eventDeliveries.dueAt),
        lt(eventDeliveries.dueAt, cutoff),
        after
          ? or(gt(eventDeliveries.dueAt, after.dueAt), and(eq(eventDeliveries.dueAt, after.dueAt), gt(eventDeliveries.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(asc(eventDeliveries.dueAt), asc(eventDeliveries.id))
    .limit(limit);
  const last = rows.at(-1);
  return {
    deliveries: rows.map((row) => ({
      deliveryId: row.id,
      firstAttempt: row.attemptCount + 1,
      endpointId: row.endpointId,
      maxPerSecond: row.maxPerSecond,
    })),
    // due_at is non-null by the filter above.
    next: rows.length === limit && last ? { dueAt: last.dueAt!.toISOString(), id: last.id } : null,
  };
}
