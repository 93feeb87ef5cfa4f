import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { subscriptionChangeRequests, type ChangeStep, type PendingChange } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { scheduleOfSubscription } from "@/lib/subscriptions/core";
import { canChangeItems } from "@/lib/subscriptions/rules";
import type { SubscriptionRow, SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { planStep, plannedItems, type PlannedItem, type StepContext } from "./plan";
import { perPeriodAtom, prorationOutcome, signedProration, type ProrationBehavior } from "./proration";
import type { ChangeRequestRow } from "./serialize";

/* What the change-request verbs share (service.ts, collect.ts, apply.ts): the locked read, the preview, the recorded error. */

export const table = subscriptionChangeRequests;
export const ofRequest = (accountId: string, subscriptionId: string, id: string) =>
  and(eq(table.accountId, accountId), eq(table.subscriptionId, subscriptionId), eq(table.id, id));

export async function loadRequest(executor: Executor, ctx: ServiceContext, subscriptionId: string, id: string): Promise<ChangeRequestRow> {
  const [row] = await executor.select().from(table).where(ofRequest(ctx.accountId, subscriptionId, id));
  if (!row) throw notFound("subscription change request", id);
  return row;
}

export async function lockRequest(tx: ChangeTransaction, ctx: ServiceContext, subscriptionId: string, id: string): Promise<ChangeRequestRow> {
  const [row] = await tx.select().from(table).where(ofRequest(ctx.accountId, subscriptionId, id)).for("update");
  if (!row) throw notFound("subscription change request", id);
  return row;
}

export function assertChangeable(subscription: SubscriptionRow): void {
  if (!canChangeItems(subscription)) {
    throw new ServiceError("conflict", `Subscription '${subscription.id}' is cancelled; its items can no longer change.`);
  }
}

/** Only the period of an active (or past due) subscription is billed; a trial or a pause owes nothing now. */
export const billed = (subscription: SubscriptionRow) => subscription.status === "active" || subscription.status === "past_due";

/**
 * The preview of the pending steps on the subscription as it is now, prorated at `at` with
 * `behavior`. Every step is checked against the items the previous steps leave; the first invalid
 * one throws (422). `netProrationAtom` is the signed proration whatever the behaviour (what makes
 * the change an upgrade or a downgrade).
 */
export async function preview(
  executor: Executor,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  steps: readonly ChangeStep[],
  at: Date,
  behavior: ProrationBehavior,
): Promise<ChangePreview & { netProrationAtom: number }> {
  const context = { executor, accountId: ctx.accountId, schedule: await scheduleOfSubscription(executor, current) };
  const before = await plannedItems(executor, current.items, current.subscription.currency);
  let items: PlannedItem[] = before;
  for (const [index, step] of steps.entries()) {
    if (step.state === "pending") items = (await planStep(context, items, step, index)).items;
  }
  const { subscription } = current;
  const next = perPeriodAtom(items);
  if (next > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "steps", message: "The subscription's amount per period would exceed 2^53 - 1 atoms." }]);
  }
  const net = signedProration({
    before,
    after: items,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    prorationDate: at,
    billed: billed(subscription),
  });
  const outcome = prorationOutcome(behavior, net);
  // |net| is at most the larger per-period amount: both are safe integers.
  return {
    amountDueNowAtom: Number(outcome.amountDueNowAtom),
    prorationAmountAtom: Number(outcome.prorationAmountAtom),
    nextInvoiceAmountAtom: Number(next),
    netProrationAtom: Number(net),
  };
}

/** The amounts a change request fixes at creation (and checks again before it is applied). */
export type ChangePreview = { amountDueNowAtom: number; prorationAmountAtom: number; nextInvoiceAmountAtom: number };

export const samePreview = (a: ChangePreview, b: ChangePreview) =>
  a.amountDueNowAtom === b.amountDueNowAtom && a.prorationAmountAtom === b.prorationAmountAtom && a.nextInvoiceAmountAtom === b.nextInvoiceAmountAtom;

/**
 * The items after the pending changes (`pending_changes`), planned in order as the renewal applies
 * them: a pending change whose steps no longer apply is left out, as the renewal would drop it.
 */
export async function itemsAfterPending(context: StepContext, items: PlannedItem[], pending: readonly PendingChange[]): Promise<PlannedItem[]> {
  let after = items;
  for (const change of pending) {
    try {
      after = await planSteps(context, after, change.steps);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.category !== "validation") throw error;
    }
  }
  return after;
}

/** Plans every pending step on `items`; the first invalid one throws (422 naming `steps.N.field`). */
export async function planSteps(context: StepContext, items: PlannedItem[], steps: readonly ChangeStep[]): Promise<PlannedItem[]> {
  let after = items;
  for (const [index, step] of steps.entries()) {
    if (step.state === "pending") after = (await planStep(context, after, step, index)).items;
  }
  return after;
}

/**
 * The preview of a change at the period end: the steps planned after the pending changes; nothing
 * is due now (the change starts with the next period), the next invoice bills the items after all of them.
 */
export async function previewAtPeriodEnd(
  executor: Executor,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  steps: readonly ChangeStep[],
): Promise<ChangePreview> {
  const context = { executor, accountId: ctx.accountId, schedule: await scheduleOfSubscription(executor, current) };
  const base = await itemsAfterPending(context, await plannedItems(executor, current.items, current.subscription.currency), current.subscription.pendingChanges);
  const after = await planSteps(context, base, steps);
  const next = perPeriodAtom(after);
  if (next > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "steps", message: "The subscription's amount per period would exceed 2^53 - 1 atoms." }]);
  }
  // At the period boundary nothing is left to prorate, whatever `proration_behavior` says.
  return { amountDueNowAtom: 0, prorationAmountAtom: 0, nextInvoiceAmountAtom: Number(next) };
}

/** Records why an apply stopped (no event: the change request has none). */
export async function recordError(ctx: ServiceContext, request: ChangeRequestRow, message: string): Promise<ChangeRequestRow> {
  return withChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    const sideEffects = locked.paymentCollectedAt !== null || locked.appliedSteps > 0;
    const row = one(await tx
      .update(table)
      .set({ lastError: message, status: sideEffects && locked.status === "open" ? "partially_applied" : locked.status, updated: ctx.now() })
      .where(eq(table.id, locked.id))
      .returning());
    return row;
  });
}

export function noLongerApplies(request: ChangeRequestRow, error: ServiceError): ServiceError {
  const errors = (error.extras.errors as FieldError[] | undefined) ?? [];
  const why = errors.length > 0 ? errors.map((e) => `${e.field}: ${e.message}`).join("; ") : error.message;
  return new ServiceError(
    "conflict",
    `Change request '${request.id}' no longer applies to subscription '${request.subscriptionId}': ${why} Nothing was charged or changed; cancel it and create a new one.`,
    errors.length > 0 ? { errors } : {},
  );
}
