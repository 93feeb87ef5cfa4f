import { eq } from "drizzle-orm";
import { subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { itemsOf, lockSubscription } from "@/lib/subscriptions/core";
import { recordSubscriptionChange } from "@/lib/subscriptions/record";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { assertChangeable, lockRequest, noLongerApplies, previewAtPeriodEnd, table } from "./core";
import { cancelScheduled } from "./drop";
import { canApplyChangeRequest } from "./rules";
import { serializeChangeRequest, type ChangeRequestRow } from "./serialize";

/*
 * Changes at the period end, before the renewal: applying a `period_end` change request schedules
 * it (it joins the subscription's `pending_changes`), cancelling it unschedules it. Both lock the
 * subscription first, then the request, as the renewal does (lib/subscription-changes/pending.ts),
 * so each of them and the renewal happen wholly before or after one another.
 */

/** Writes the subscription's pending changes and records the change (`customer.subscription.updated`). */
async function setPending(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: SubscriptionWithItems,
  pendingChanges: SubscriptionWithItems["subscription"]["pendingChanges"],
): Promise<void> {
  const subscription = one(
    await tx.update(subscriptions).set({ pendingChanges, updated: ctx.now() }).where(eq(subscriptions.id, before.subscription.id)).returning(),
  );
  await recordSubscriptionChange(tx, ctx, "customer.subscription.updated", { subscription, items: await itemsOf(tx, subscription.id) }, before);
}

/**
 * Open → scheduled for the current period's end: nothing is charged or changed now. The steps are
 * checked again after the changes already pending (409 when they no longer apply, or when the
 * subscription moved since the preview), as the renewal will apply them.
 */
export async function scheduleChangeRequest(ctx: ServiceContext, request: ChangeRequestRow): Promise<ChangeRequestRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockSubscription(tx, ctx.accountId, request.subscriptionId);
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    if (!canApplyChangeRequest({ status: locked.status, effective: "period_end" })) {
      throw new ServiceError("conflict", `Change request '${locked.id}' is ${locked.status}; only open change requests can be applied (scheduled).`);
    }
    const { subscription } = before;
    assertChangeable(subscription);
    if (locked.prorationDate.getTime() < subscription.currentPeriodStart.getTime()) {
      throw new ServiceError(
        "conflict",
        `Subscription '${subscription.id}' started a new period after change request '${locked.id}' was previewed; cancel it and create a new one.`,
      );
    }
    let amounts;
    try {
      amounts = await previewAtPeriodEnd(tx, ctx, before, locked.steps);
    } catch (error) {
      throw error instanceof ServiceError && error.category === "validation" ? noLongerApplies(locked, error) : error;
    }
    if (amounts.nextInvoiceAmountAtom !== locked.nextInvoiceAmountAtom) {
      throw new ServiceError(
        "conflict",
        `Subscription '${subscription.id}' changed after change request '${locked.id}' was previewed (its next invoice would now be ${amounts.nextInvoiceAmountAtom}); cancel it and create a new one.`,
      );
    }
    const now = ctx.now();
    const row = one(
      await tx
        .update(table)
        .set({ status: "scheduled", effectiveAt: subscription.currentPeriodEnd, lastError: null, updated: now })
        .where(eq(table.id, locked.id))
        .returning(),
    );
    await setPending(tx, ctx, before, [...subscription.pendingChanges, { change_request: row.id, steps: row.steps }]);
    await emitEvent(tx, ctx, {
      type: "subscription_change_request.scheduled",
      aggregateId: row.id,
      data: serializeChangeRequest(row, ctx.livemode),
      previousData: serializeChangeRequest(locked, ctx.livemode),
    });
    return row;
  });
}

/** Scheduled → canceled (`requested`): it leaves the subscription's `pending_changes`. 409 once the renewal applied it. */
export async function cancelScheduledChangeRequest(ctx: ServiceContext, request: ChangeRequestRow): Promise<ChangeRequestRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockSubscription(tx, ctx.accountId, request.subscriptionId);
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    if (locked.status !== "scheduled") {
      throw new ServiceError("conflict", `Change request '${locked.id}' is ${locked.status}; it can no longer be canceled.`);
    }
    const row = await cancelScheduled(tx, ctx, locked, "requested");
    await setPending(
      tx,
      ctx,
      before,
      before.subscription.pendingChanges.filter((change) => change.change_request !== row.id),
    );
    return row;
  });
}
