import type { Executor } from "@/db/client";
import type { ChangeStep } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { scheduleOfSubscription } from "@/lib/subscriptions/core";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { itemsAfterPending, planSteps } from "./core";
import { effectiveAndPreview } from "./effective";
import { plannedItems, type PlannedItem } from "./plan";
import type { ProrationBehavior } from "./proration";
import type { ChangeEffect } from "./schema";

/* What the next invoices of a subscription bill, with or without a change: for the previews (lib/subscriptions/upcoming.ts). */

export type ChangeToPreview = { steps: readonly ChangeStep[]; effective?: ChangeEffect; prorationDate: Date; prorationBehavior?: ProrationBehavior };

export type Outcome = {
  /** When the change takes effect (null: no change), as creating its change request would decide. */
  effective: ChangeEffect | null;
  /** The proration applying it at the proration date collects at once (0: nothing due now). */
  amountDueNowAtom: number;
  /** The signed proration it applies (< 0: credited to the customer's balance; proration.ts). */
  prorationAmountAtom: number;
  /** The items the next renewal bills: the pending changes that still apply, and the change, in the order the renewal runs them. */
  itemsAtRenewal: PlannedItem[];
};

/**
 * The one place a preview asks the change-request code what a change does: its `effective` and
 * proration (effective.ts, the same as creating the change request; a refused step is its 422
 * naming `steps.N.field`), and the items it leaves. A change now comes before the pending ones
 * (they run at the period end); a change at the period end after them (previewAtPeriodEnd's order).
 */
export async function changeOutcome(executor: Executor, ctx: ServiceContext, current: SubscriptionWithItems, change: ChangeToPreview | null): Promise<Outcome> {
  const context = { executor, accountId: ctx.accountId, schedule: await scheduleOfSubscription(executor, current) };
  const items = await plannedItems(executor, current.items, current.subscription.currency);
  const pending = current.subscription.pendingChanges;
  if (!change) return { effective: null, amountDueNowAtom: 0, prorationAmountAtom: 0, itemsAtRenewal: await itemsAfterPending(context, items, pending) };
  const behavior = change.prorationBehavior ?? "create_prorations";
  const { effective, amountDueNowAtom, prorationAmountAtom } = await effectiveAndPreview(executor, ctx, current, change.steps, change.prorationDate, change.effective, behavior);
  const itemsAtRenewal =
    effective === "now"
      ? await itemsAfterPending(context, await planSteps(context, items, change.steps), pending)
      : await planSteps(context, await itemsAfterPending(context, items, pending), change.steps);
  return { effective, amountDueNowAtom, prorationAmountAtom, itemsAtRenewal };
}
