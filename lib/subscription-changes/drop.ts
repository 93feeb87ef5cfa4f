import { and, asc, eq } from "drizzle-orm";
import { subscriptionChangeRequests } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { serializeChangeRequest, type ChangeRequestRow } from "./serialize";

/*
 * The end of a scheduled change request that never ran. Imports nothing of lib/subscriptions, so
 * every place that cancels a subscription (lib/subscriptions: the cancel verb, the renewal, dunning)
 * can call it without an import cycle.
 */

type Reason = "subscription_cancelled" | "no_longer_applies" | "requested";

/** Scheduled → canceled with its reason, and its `subscription_change_request.canceled`, in `tx`. */
export async function cancelScheduled(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  locked: ChangeRequestRow,
  reason: Reason,
  lastError: string | null = null,
): Promise<ChangeRequestRow> {
  const row = one(
    await tx
      .update(subscriptionChangeRequests)
      .set({ status: "canceled", cancellationReason: reason, lastError, updated: ctx.now() })
      .where(eq(subscriptionChangeRequests.id, locked.id))
      .returning(),
  );
  await emitEvent(tx, ctx, {
    type: "subscription_change_request.canceled",
    aggregateId: row.id,
    data: serializeChangeRequest(row, ctx.livemode),
    previousData: serializeChangeRequest(locked, ctx.livemode),
  });
  return row;
}

/**
 * The subscription (locked by the caller) is cancelled: its scheduled change requests are dropped,
 * each recorded (`cancellation_reason: subscription_cancelled`). The caller empties the
 * subscription's `pending_changes` in the same change.
 */
export async function dropScheduledChanges(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string): Promise<void> {
  const scheduled = await tx
    .select()
    .from(subscriptionChangeRequests)
    .where(and(eq(subscriptionChangeRequests.subscriptionId, subscriptionId), eq(subscriptionChangeRequests.status, "scheduled")))
    .orderBy(asc(subscriptionChangeRequests.id))
    .for("update");
  for (const request of scheduled) await cancelScheduled(tx, ctx, request, "subscription_cancelled");
}
