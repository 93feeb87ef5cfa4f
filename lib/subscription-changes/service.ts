import { and, eq, type SQL } from "drizzle-orm";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { prices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { getInvoice } from "@/lib/invoices/service";
import { isOutstanding } from "@/lib/invoices/rules";
import { voidInvoice } from "@/lib/invoices/settle";
import { checkSubscriptionPaymentMethod } from "@/lib/payments/processors/registry";
import { one } from "@/lib/rows";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { getSubscription } from "@/lib/subscriptions/service";
import { changeTotals } from "@/lib/subscriptions/upcoming";
import { applyChangeRequest } from "./apply";
import { assertChangeable, loadRequest, lockRequest, table } from "./core";
import { effectiveAndPreview, type PlanChangePolicy } from "./effective";
import { canCancelChangeRequest } from "./rules";
import { cancelScheduledChangeRequest } from "./schedule";
import { refuseMeteredQuantities, storedStep } from "./steps";
import type { ProrationBehavior } from "./proration";
import type { ChangeEffect, ChangeRequestStatus, ChangeStepInputValue } from "./schema";
import type { ChangeRequestRow } from "./serialize";

/* Change requests: create (with its preview), read, list, cancel, and the deprecated change-plan. Applying one: apply.ts. */

export async function createChangeRequest({
  ctx,
  input,
}: Verb<{
  subscriptionId: string;
  steps: ChangeStepInputValue[];
  effective?: ChangeEffect;
  /** Without `effective`: this rule instead of the account's `plan_change_policy` (the portal's configuration). */
  policy?: PlanChangePolicy;
  prorationBehavior?: ProrationBehavior;
  /** The deprecated change-plan only: a net decrease credits nothing, as it never did (stored as `none`). */
  creditDecrease?: boolean;
  metadata?: Record<string, string>;
}>): Promise<ChangeRequestRow> {
  const db = await getDb();
  const current = await getSubscription({ ctx, input: { id: input.subscriptionId } });
  assertChangeable(current.subscription);
  await refuseMeteredQuantities(db, ctx.accountId, input.steps);
  const now = ctx.now();
  const steps = input.steps.map(storedStep);
  let prorationBehavior = input.prorationBehavior ?? "create_prorations";
  const { effective, ...amounts } = await effectiveAndPreview(db, ctx, current, steps, now, input.effective, prorationBehavior, input.policy);
  if (input.creditDecrease === false && amounts.prorationAmountAtom < 0) {
    // `none` of the same change: nothing due (it already was) and nothing credited.
    prorationBehavior = "none";
    amounts.prorationAmountAtom = 0;
  }
  // Beside the amounts, the totals of the invoices they lead to, by the previews' functions (the
  // discount and the taxes finalization applies): what the dashboard and the portal show.
  const totals = await changeTotals(db, ctx, current, { steps, effective, prorationDate: now, prorationBehavior });
  // A change request is a plan: creating (or cancelling) an open one emits nothing. Its effects do:
  // the proration invoice, its payment, each item change; and a scheduled one's life (schedule.ts).
  const row = one(await db
    .insert(table)
    .values({
      id: newId("subscriptionChangeRequest"),
      accountId: ctx.accountId,
      subscriptionId: current.subscription.id,
      status: "open",
      steps,
      ...amounts,
      ...totals,
      prorationBehavior,
      effective,
      currency: current.subscription.currency,
      prorationDate: now,
      metadata: input.metadata ?? {},
      created: now,
      updated: now,
    })
    .returning());
  return row;
}

export async function getChangeRequest({ ctx, input }: Verb<{ subscriptionId: string; id: string }>): Promise<ChangeRequestRow> {
  return loadRequest(await getDb(), ctx, input.subscriptionId, input.id);
}

export async function listChangeRequests({
  ctx,
  input,
}: Verb<Page & { subscriptionId: string; status?: ChangeRequestStatus }>): Promise<{ items: ChangeRequestRow[] } & PageInfo> {
  // An unknown subscription is a 404, not an empty list.
  await getSubscription({ ctx, input: { id: input.subscriptionId } });
  const conditions: (SQL | undefined)[] = [eq(table.accountId, ctx.accountId), eq(table.subscriptionId, input.subscriptionId)];
  if (input.status !== undefined) conditions.push(eq(table.status, input.status));
  const where = and(...conditions);
  const { rows, ...info } = await pageOf(table, where, input);
  return { items: rows, ...info };
}

/**
 * Open → canceled. A proration invoice left open by a failed payment is voided first (under its
 * lock, so it can no longer be paid); once the payment was collected the request must be applied.
 */
export async function cancelChangeRequest({ ctx, input }: Verb<{ subscriptionId: string; id: string }>): Promise<ChangeRequestRow> {
  const refuse = (request: ChangeRequestRow) =>
    new ServiceError(
      "conflict",
      request.status === "partially_applied"
        ? `Change request '${request.id}' is partially applied (its payment was collected); apply it again to finish it.`
        : request.status === "scheduled"
          ? `Change request '${request.id}' was scheduled meanwhile; cancel it again.`
          : `Change request '${request.id}' is ${request.status}; only open or scheduled change requests can be canceled.`,
    );
  const request = await getChangeRequest({ ctx, input });
  if (request.status === "scheduled") return cancelScheduledChangeRequest(ctx, request);
  if (!canCancelChangeRequest({ status: request.status, paymentCollected: request.paymentCollectedAt !== null })) throw refuse(request);
  if (request.invoiceId !== null) {
    const invoice = await getInvoice({ ctx, input: { id: request.invoiceId } });
    if (isOutstanding(invoice.invoice.status)) {
      await voidInvoice({ ctx, input: { id: request.invoiceId } });
    } else if (invoice.invoice.status === "paid") {
      throw new ServiceError("conflict", `The proration invoice '${request.invoiceId}' of change request '${request.id}' is paid; apply the change request to finish it.`);
    }
  }
  return withChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, input.subscriptionId, input.id);
    // Scheduled meanwhile: refused (cancel again, and the scheduled branch above takes it).
    if (locked.status !== "open" || !canCancelChangeRequest({ status: locked.status, paymentCollected: locked.paymentCollectedAt !== null })) throw refuse(locked);
    const row = one(
      await tx.update(table).set({ status: "canceled", cancellationReason: "requested", updated: ctx.now() }).where(eq(table.id, locked.id)).returning(),
    );
    return row;
  });
}

/** Field names of the change-plan body for errors about the steps it made. */
function asChangePlanError(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.category !== "validation") return error;
  const rename = (field: string) => field.replace(/^steps\.\d+\.(price|quantity)$/, "$1").replace(/^steps(\.\d+\.item)?$/, "price");
  const errors = ((error.extras.errors as FieldError[] | undefined) ?? []).map((e) => ({ ...e, field: rename(e.field) }));
  return validationFailed(errors);
}

/**
 * The deprecated change-subscription-plan operation: the subscription ends with one item, the
 * price at `quantity` (default 1), through a change request created and applied at once. The item
 * that already bills the price is kept (else the first item switches price); the others go.
 */
export async function changePlan({
  ctx,
  input,
}: Verb<{ subscriptionId: string; price: string; quantity?: number; paymentMethod?: string }>): Promise<SubscriptionWithItems> {
  const current = await getSubscription({ ctx, input: { id: input.subscriptionId } });
  assertChangeable(current.subscription);
  const quantity = input.quantity ?? 1;
  const keep = current.items.find((item) => item.priceId === input.price) ?? current.items[0]!;
  const [target] = await (await getDb())
    .select({ usageType: prices.usageType })
    .from(prices)
    .where(and(eq(prices.accountId, ctx.accountId), eq(prices.id, input.price)));
  const metered = target?.usageType === "metered";
  if (metered && input.quantity !== undefined) {
    const message = `Price '${input.price}' is metered: its item has no quantity (usage is billed).`;
    throw validationFailed([{ field: "quantity", message }], message);
  }
  const steps: ChangeStepInputValue[] = [];
  if (keep.priceId !== input.price) steps.push({ type: "switch_price", item: keep.id, price: input.price });
  if (!metered && keep.quantity !== quantity) steps.push({ type: "set_quantity", item: keep.id, quantity });
  for (const item of current.items) if (item.id !== keep.id) steps.push({ type: "remove_item", item: item.id });
  if (steps.length === 0) {
    if (input.paymentMethod !== undefined) {
      await checkSubscriptionPaymentMethod(await getDb(), ctx, input.paymentMethod, current.subscription.customerId, "payment_method");
    }
    return current;
  }
  let request: ChangeRequestRow;
  try {
    request = await createChangeRequest({
      ctx,
      input: { subscriptionId: current.subscription.id, steps, effective: "now", creditDecrease: false, metadata: { source: "change-plan" } },
    });
  } catch (error) {
    throw asChangePlanError(error);
  }
  await applyChangeRequest({ ctx, input: { subscriptionId: request.subscriptionId, id: request.id, paymentMethod: input.paymentMethod } });
  return getSubscription({ ctx, input: { id: request.subscriptionId } });
}
