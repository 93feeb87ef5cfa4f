import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import type { ServiceContext, Verb } from "@/lib/context";
import { retryableConflict, ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { checkSubscriptionPaymentMethod } from "@/lib/payments/processors/registry";
import { one } from "@/lib/rows";
import { lockSubscription, scheduleOfSubscription } from "@/lib/subscriptions/core";
import { applyItemChange } from "@/lib/subscriptions/items";
import { getSubscription } from "@/lib/subscriptions/service";
import { collectPayment } from "./collect";
import { assertChangeable, loadRequest, lockRequest, noLongerApplies, preview, recordError, samePreview, table } from "./core";
import { creditProration } from "./credit";
import { planStep, plannedItems } from "./plan";
import { CHANGE_REQUEST_ACTION_FROM } from "./rules";
import { scheduleChangeRequest } from "./schedule";
import type { ChangeRequestRow } from "./serialize";
import { log, safeError } from "@/lib/log";

/** The error a failed step answers: PARTIAL_APPLY_RETRYABLE once anything happened, else the step's own refusal. */
async function stepFailure(ctx: ServiceContext, request: ChangeRequestRow, error: unknown): Promise<unknown> {
  if (!(error instanceof ServiceError)) log().error({ change_request_id: request.id, err: safeError(error) }, "a change request step failed");
  const message = error instanceof ServiceError ? error.message : "An unexpected error occurred while applying the step.";
  const current = await loadRequest(await getDb(), ctx, request.subscriptionId, request.id);
  const failedStep = current.steps.findIndex((step) => step.state === "pending");
  const recorded = await recordError(ctx, current, `steps.${failedStep}: ${message}`);
  if (recorded.paymentCollectedAt === null && recorded.appliedSteps === 0) {
    return error instanceof ServiceError && error.category === "validation" ? noLongerApplies(recorded, error) : error;
  }
  const detail = {
    change_request_id: recorded.id,
    subscription_id: recorded.subscriptionId,
    applied_steps: recorded.appliedSteps,
    failed_step: failedStep,
    payment_collected: recorded.paymentCollectedAt !== null,
    invoice_id: recorded.invoiceId,
    message: `${message} Apply the change request again to resume from step ${failedStep}; the payment is not collected again.`,
  };
  return retryableConflict({
    errorCode: "PARTIAL_APPLY_RETRYABLE",
    title: "Partial Apply Retryable",
    // The spec: "`detail` is a stringified object (not nested JSON)".
    detail: JSON.stringify(detail),
    fields: { subscription_id: recorded.subscriptionId, change_request_id: recorded.id },
  });
}

/** Applies the first pending step in its own transaction; null once every step is applied. */
async function applyNextStep(ctx: ServiceContext, request: ChangeRequestRow, failStep: number | undefined): Promise<ChangeRequestRow | null> {
  return withChangeTransaction(async (tx) => {
    // The request's lock orders concurrent applies: a step is never applied twice.
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    // Canceled by a concurrent call after this apply's checks (possible only while nothing was collected).
    if (locked.status === "canceled") assertNotFinished(locked);
    const index = locked.steps.findIndex((step) => step.state === "pending");
    if (index === -1) return null;
    const before = await lockSubscription(tx, ctx.accountId, locked.subscriptionId);
    assertChangeable(before.subscription);
    if (index === failStep) throw new ServiceError("conflict", `Step ${index} failed on purpose (sandbox_fail_step: ${failStep}).`);
    const context = { executor: tx, accountId: ctx.accountId, schedule: await scheduleOfSubscription(tx, before) };
    const planned = await planStep(context, await plannedItems(tx, before.items, before.subscription.currency), locked.steps[index]!, index);
    const now = ctx.now();
    const { itemId } = await applyItemChange(tx, ctx, before, planned.change, now);
    const steps = locked.steps.map((step, i) => (i === index ? { ...step, item: step.item ?? itemId, state: "applied" as const } : step));
    const done = steps.every((step) => step.state === "applied");
    // With the last step, in its transaction: the change is whole, and this runs once (the request's lock).
    const credit = done ? await creditProration(tx, ctx, locked, before.subscription) : null;
    const row = one(await tx
      .update(table)
      .set({
        steps,
        appliedSteps: locked.appliedSteps + 1,
        status: done ? "applied" : "partially_applied",
        appliedAt: done ? now : null,
        balanceTransactionId: credit?.id ?? locked.balanceTransactionId,
        lastError: null,
        updated: now,
      })
      .where(eq(table.id, locked.id))
      .returning());
    return row;
  });
}

function assertNotFinished(request: ChangeRequestRow): void {
  if (!(CHANGE_REQUEST_ACTION_FROM.apply as readonly string[]).includes(request.status)) {
    throw new ServiceError("conflict", `Change request '${request.id}' is ${request.status}; only open or partially applied change requests can be applied.`);
  }
}

export type ApplyInput = { subscriptionId: string; id: string; paymentMethod?: string; sandboxFailStep?: number };

/**
 * Payment first, then the steps one by one (each in its own transaction with its
 * `customer.subscription.updated`). A retry resumes at the first pending step and never collects
 * again (`payment_collected_at`).
 */
export async function applyChangeRequest({ ctx, input }: Verb<ApplyInput>): Promise<ChangeRequestRow> {
  const db = await getDb();
  let request = await loadRequest(db, ctx, input.subscriptionId, input.id);
  if (input.sandboxFailStep !== undefined) {
    if (ctx.livemode) {
      throw validationFailed([{ field: "sandbox_fail_step", message: "Failure injection exists only on sandbox accounts." }]);
    }
    if (input.sandboxFailStep >= request.steps.length) {
      throw validationFailed([
        { field: "sandbox_fail_step", message: `Change request '${request.id}' has steps 0 to ${request.steps.length - 1}.` },
      ]);
    }
  }
  assertNotFinished(request);
  if (input.paymentMethod !== undefined) {
    const { subscription } = await getSubscription({ ctx, input: { id: request.subscriptionId } });
    await checkSubscriptionPaymentMethod(db, ctx, input.paymentMethod, subscription.customerId, "payment_method");
  }
  if (request.effective === "period_end") {
    if (input.sandboxFailStep !== undefined) {
      throw validationFailed([{ field: "sandbox_fail_step", message: `Change request '${request.id}' takes effect at the period end: nothing is applied now.` }]);
    }
    // Nothing is charged or changed now: the renewal applies it (pending.ts).
    return scheduleChangeRequest(ctx, request);
  }
  const current = await getSubscription({ ctx, input: { id: request.subscriptionId } });
  assertChangeable(current.subscription);

  if (request.status === "open") {
    // Nothing happened yet: refuse, charging nothing, a plan the subscription has moved away from.
    if (request.prorationDate.getTime() < current.subscription.currentPeriodStart.getTime()) {
      throw new ServiceError(
        "conflict",
        `Subscription '${current.subscription.id}' started a new period after change request '${request.id}' was previewed; cancel it and create a new one.`,
      );
    }
    let amounts;
    try {
      amounts = await preview(db, ctx, current, request.steps, request.prorationDate, request.prorationBehavior);
    } catch (error) {
      throw error instanceof ServiceError && error.category === "validation" ? noLongerApplies(request, error) : error;
    }
    // The credit of a decrease depends on the items before, too: the whole preview must still hold.
    if (!samePreview(amounts, request)) {
      throw new ServiceError(
        "conflict",
        `Subscription '${current.subscription.id}' changed after change request '${request.id}' was previewed (its amounts would now be ${amounts.amountDueNowAtom} due now, a proration of ${amounts.prorationAmountAtom} and ${amounts.nextInvoiceAmountAtom} per period); cancel it and create a new one.`,
      );
    }
  }

  if (request.amountDueNowAtom > 0 && request.paymentCollectedAt === null) {
    request = await collectPayment(ctx, request, current.subscription, input.paymentMethod);
  }

  for (;;) {
    let applied: ChangeRequestRow | null;
    try {
      applied = await applyNextStep(ctx, request, input.sandboxFailStep);
    } catch (error) {
      throw await stepFailure(ctx, request, error);
    }
    if (applied === null || applied.status === "applied") return applied ?? loadRequest(db, ctx, request.subscriptionId, request.id);
    request = applied;
  }
}
