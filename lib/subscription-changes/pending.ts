import { eq, inArray } from "drizzle-orm";
import { subscriptions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError, type FieldError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { itemsOf, scheduleOfSubscription } from "@/lib/subscriptions/core";
import { applyItemChange, type ItemChange } from "@/lib/subscriptions/items";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { table } from "./core";
import { cancelScheduled } from "./drop";
import { planStep, plannedItems } from "./plan";
import { serializeChangeRequest, type ChangeRequestRow } from "./serialize";

/** Why a scheduled request's steps no longer apply, for its `last_error`. */
function whyNot(error: ServiceError): string {
  const errors = (error.extras.errors as FieldError[] | undefined) ?? [];
  return errors.length > 0 ? errors.map((e) => `${e.field}: ${e.message}`).join("; ") : error.message;
}

/**
 * The renewal's first act (lib/subscriptions/renewal.ts, in its transaction, the subscription
 * locked): the subscription's pending changes, in order. Each scheduled request is planned whole on
 * the items as they are then; if every step applies, its steps are applied (one
 * `customer.subscription.updated` each) and it becomes `applied`
 * (`subscription_change_request.applied`); if one does not (a price archived since, an item removed
 * since), none of its steps is applied and it is canceled with `no_longer_applies` and the reason.
 * Answers what the renewal's next event records as before: the subscription after the last step
 * (its `pending_changes` emptied), or, when no step ran, as it was locked.
 */
export async function applyPendingChanges(tx: ChangeTransaction, ctx: ServiceContext, locked: SubscriptionWithItems): Promise<SubscriptionWithItems> {
  const pending = locked.subscription.pendingChanges;
  if (pending.length === 0) return locked;
  const now = ctx.now();
  const ids = pending.map((change) => change.change_request);
  const requests = await tx.select().from(table).where(inArray(table.id, ids)).orderBy(table.id).for("update");
  // The pending list empties with the first change recorded (the first step's event shows it).
  let current: SubscriptionWithItems = {
    subscription: one(await tx.update(subscriptions).set({ pendingChanges: [], updated: now }).where(eq(subscriptions.id, locked.subscription.id)).returning()),
    items: locked.items,
  };
  // What the next step's event records as before: until one is recorded, the subscription with its pending list.
  let recorded: SubscriptionWithItems = locked;
  for (const id of ids) {
    const request = requests.find((row) => row.id === id);
    // Scheduling and cancelling hold the subscription's lock: a listed request is scheduled.
    if (!request || request.status !== "scheduled") continue;
    const changes = await planned(tx, ctx, current, request);
    if (typeof changes === "string") {
      await cancelScheduled(tx, ctx, request, "no_longer_applies", `At the renewal of ${locked.subscription.currentPeriodEnd.toISOString()}: ${changes}`);
      continue;
    }
    const steps = [...request.steps];
    for (const [index, change] of changes) {
      // Effective at the period end, not at the renewal's run (up to a usage grace window later): a
      // metered item switched to bills from the new period's start, one switched from until its end.
      const { after, itemId } = await applyItemChange(tx, ctx, recorded, change, locked.subscription.currentPeriodEnd);
      recorded = after;
      current = after;
      steps[index] = { ...steps[index]!, item: steps[index]!.item ?? itemId, state: "applied" };
    }
    const row = one(
      await tx
        .update(table)
        .set({ steps, appliedSteps: steps.length, status: "applied", appliedAt: now, lastError: null, updated: now })
        .where(eq(table.id, request.id))
        .returning(),
    );
    await emitEvent(tx, ctx, {
      type: "subscription_change_request.applied",
      aggregateId: row.id,
      data: serializeChangeRequest(row, ctx.livemode),
      previousData: serializeChangeRequest(request, ctx.livemode),
    });
  }
  // The state the renewal's next event starts from: the last step's, or (no step ran) the
  // subscription as locked, so that event shows its pending_changes emptied.
  return { subscription: recorded.subscription, items: await itemsOf(tx, locked.subscription.id) };
}

/** The item changes of the request's pending steps on the items as they are, or why one does not apply. */
async function planned(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  request: ChangeRequestRow,
): Promise<[number, ItemChange][] | string> {
  const context = { executor: tx, accountId: ctx.accountId, schedule: await scheduleOfSubscription(tx, current) };
  let items = await plannedItems(tx, current.items, current.subscription.currency);
  const changes: [number, ItemChange][] = [];
  try {
    for (const [index, step] of request.steps.entries()) {
      if (step.state !== "pending") continue;
      const plan = await planStep(context, items, step, index);
      changes.push([index, plan.change]);
      items = plan.items;
    }
  } catch (error) {
    if (error instanceof ServiceError && error.category === "validation") return whyNot(error);
    throw error;
  }
  return changes;
}
