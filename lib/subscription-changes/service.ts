import { and, eq, type SQL } from "drizzle-orm";
import { getDb, type Executor, type Transaction } from "@/db/client";
import { pageOf } from "@/db/page";
import { invoices, paymentIntents, subscriptionChangeRequests, type ChangeStep } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, retryableConflict, ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { inChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { createInvoice, finalizeInvoice, getInvoice, payInvoice, voidInvoice } from "@/lib/invoices/service";
import type { InvoiceWithLines } from "@/lib/invoices/serialize";
import { checkSandboxPaymentMethod } from "@/lib/payments/sandbox";
import type { SubscriptionRow, SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import {
  applyItemChange,
  getSubscription,
  lockSubscriptionForChange,
  subscriptionScheduleOf,
} from "@/lib/subscriptions/service";
import { planStep, plannedItems, type PlannedItem } from "./plan";
import { prorate } from "./proration";
import type { ChangeRequestStatus, ChangeStepInputValue } from "./schema";
import type { ChangeRequestRow } from "./serialize";

const table = subscriptionChangeRequests;
const ofRequest = (accountId: string, subscriptionId: string, id: string) =>
  and(eq(table.accountId, accountId), eq(table.subscriptionId, subscriptionId), eq(table.id, id));

async function loadRequest(executor: Executor, ctx: ServiceContext, subscriptionId: string, id: string): Promise<ChangeRequestRow> {
  const [row] = await executor.select().from(table).where(ofRequest(ctx.accountId, subscriptionId, id));
  if (!row) throw notFound("subscription change request", id);
  return row;
}

async function lockRequest(tx: Transaction, ctx: ServiceContext, subscriptionId: string, id: string): Promise<ChangeRequestRow> {
  const [row] = await tx.select().from(table).where(ofRequest(ctx.accountId, subscriptionId, id)).for("update");
  if (!row) throw notFound("subscription change request", id);
  return row;
}

function storedStep(step: ChangeStepInputValue): ChangeStep {
  switch (step.type) {
    case "switch_price":
      return { type: step.type, item: step.item, price: step.price, quantity: null, state: "pending" };
    case "set_quantity":
      return { type: step.type, item: step.item, price: null, quantity: step.quantity, state: "pending" };
    case "add_item":
      return { type: step.type, item: null, price: step.price, quantity: step.quantity ?? 1, state: "pending" };
    case "remove_item":
      return { type: step.type, item: step.item, price: null, quantity: null, state: "pending" };
  }
}

function assertChangeable(subscription: SubscriptionRow): void {
  if (subscription.status === "cancelled") {
    throw new ServiceError("conflict", `Subscription '${subscription.id}' is cancelled; its items can no longer change.`);
  }
}

/** Only the period of an active (or past due) subscription is billed; a trial or a pause owes nothing now. */
const billed = (subscription: SubscriptionRow) => subscription.status === "active" || subscription.status === "past_due";

/**
 * The preview of the pending steps on the subscription as it is now, prorated at `at`. Every step
 * is checked against the items the previous steps leave; the first invalid one throws (422).
 */
async function preview(executor: Executor, ctx: ServiceContext, current: SubscriptionWithItems, steps: readonly ChangeStep[], at: Date) {
  const context = { executor, accountId: ctx.accountId, schedule: await subscriptionScheduleOf(executor, current.items) };
  const before = await plannedItems(executor, current.items);
  let items: PlannedItem[] = before;
  for (const [index, step] of steps.entries()) {
    if (step.state === "pending") items = (await planStep(context, items, step, index)).items;
  }
  const { subscription } = current;
  const amounts = prorate({
    before,
    after: items,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    prorationDate: at,
    billed: billed(subscription),
  });
  if (amounts.nextInvoiceAmountAtom > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "steps", message: "The subscription's amount per period would exceed 2^53 - 1 atoms." }]);
  }
  // Due now is at most the increase, which is at most the new per-period amount.
  return { amountDueNowAtom: Number(amounts.amountDueNowAtom), nextInvoiceAmountAtom: Number(amounts.nextInvoiceAmountAtom) };
}

export async function createChangeRequest({
  ctx,
  input,
}: Verb<{ subscriptionId: string; steps: ChangeStepInputValue[]; metadata?: Record<string, string> }>): Promise<ChangeRequestRow> {
  const db = await getDb();
  const current = await getSubscription({ ctx, input: { id: input.subscriptionId } });
  assertChangeable(current.subscription);
  const now = ctx.now();
  const steps = input.steps.map(storedStep);
  const amounts = await preview(db, ctx, current, steps, now);
  // A change request is a plan: the event catalogue has no type for it, so creating (or cancelling)
  // one emits nothing. Its effects do: the proration invoice, its payment, each item change.
  const [row] = await db
    .insert(table)
    .values({
      id: newId("subscriptionChangeRequest"),
      accountId: ctx.accountId,
      subscriptionId: current.subscription.id,
      status: "open",
      steps,
      ...amounts,
      currency: current.subscription.currency,
      prorationDate: now,
      metadata: input.metadata ?? {},
      created: now,
      updated: now,
    })
    .returning();
  return row!;
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

/** Records why an apply stopped (no event: the change request has none). */
async function recordError(ctx: ServiceContext, request: ChangeRequestRow, message: string): Promise<ChangeRequestRow> {
  return inChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    const sideEffects = locked.paymentCollectedAt !== null || locked.appliedSteps > 0;
    const [row] = await tx
      .update(table)
      .set({ lastError: message, status: sideEffects && locked.status === "open" ? "partially_applied" : locked.status, updated: ctx.now() })
      .where(eq(table.id, locked.id))
      .returning();
    return row!;
  });
}

function noLongerApplies(request: ChangeRequestRow, error: ServiceError): ServiceError {
  const errors = (error.extras.errors as FieldError[] | undefined) ?? [];
  const why = errors.length > 0 ? errors.map((e) => `${e.field}: ${e.message}`).join("; ") : error.message;
  return new ServiceError(
    "conflict",
    `Change request '${request.id}' no longer applies to subscription '${request.subscriptionId}': ${why} Nothing was charged or changed; cancel it and create a new one.`,
    errors.length > 0 ? { errors } : {},
  );
}

/** Why the proration invoice is not paid, from the invoice and its latest payment intent. */
async function collectionFailure(invoice: InvoiceWithLines): Promise<string> {
  if (invoice.invoice.status === "void") return `the proration invoice '${invoice.invoice.id}' was voided`;
  const intentId = invoice.paymentIntent ?? null;
  if (intentId === null) return `the proration invoice '${invoice.invoice.id}' is ${invoice.invoice.status}`;
  const db = await getDb();
  const [intent] = await db.select().from(paymentIntents).where(eq(paymentIntents.id, intentId));
  if (intent?.lastPaymentError) return intent.lastPaymentError;
  if (intent?.status === "requires_action") return `payment intent '${intent.id}' requires the customer's action`;
  if (invoice.invoice.paidAmountAtom > 0) {
    return `only ${invoice.invoice.paidAmountAtom} of ${invoice.invoice.totalAmountAtom} atoms were collected (payment intent '${intentId}')`;
  }
  return `payment intent '${intentId}' is ${intent?.status ?? "unknown"}`;
}

/**
 * Collects `amount_due_now_atom` before any step is applied: one proration invoice per change
 * request (a line "Proration for scr_…", linked to the subscription), finalized (the customer's
 * discount applies, as on every invoice) and paid with the method. A failed payment leaves the
 * invoice open for the next apply (with this or another method) and the request open: 409.
 */
async function collectPayment(
  ctx: ServiceContext,
  request: ChangeRequestRow,
  subscription: SubscriptionRow,
  paymentMethod: string | undefined,
): Promise<ChangeRequestRow> {
  const method = paymentMethod ?? subscription.defaultPaymentMethod;
  if (method === null) {
    const message = `${request.amountDueNowAtom} ${request.currency} atoms are due now and subscription '${subscription.id}' has no default_payment_method: give payment_method.`;
    throw new ServiceError("bad_request", `Missing required field: payment_method. ${message}`, { errors: [{ field: "payment_method", message }] });
  }
  // Before anything is written: live accounts and unknown methods are a 422 on payment_method.
  checkSandboxPaymentMethod(ctx.livemode, method, "payment_method");

  let invoiceId = request.invoiceId;
  if (invoiceId === null) {
    const description = `Proration for ${request.id}`;
    const draft = await createInvoice({
      ctx,
      input: {
        customer: subscription.customerId,
        currency: request.currency,
        description: `${description} (subscription ${subscription.id})`,
        lines: [{ unit_amount_atom: request.amountDueNowAtom, description, quantity: 1 }],
      },
    });
    invoiceId = await inChangeTransaction(async (tx) => {
      const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
      if (locked.status === "canceled") throw new ServiceError("conflict", `Change request '${locked.id}' was canceled.`);
      // A concurrent apply claimed first: its invoice is the one; this draft stays unlinked and owes nothing.
      if (locked.invoiceId !== null) return locked.invoiceId;
      await tx
        .update(invoices)
        .set({ subscriptionId: subscription.id })
        .where(and(eq(invoices.id, draft.invoice.id), eq(invoices.status, "draft")));
      await tx.update(table).set({ invoiceId: draft.invoice.id, updated: ctx.now() }).where(eq(table.id, locked.id));
      return draft.invoice.id;
    });
  }

  const id = invoiceId;
  let invoice = await getInvoice({ ctx, input: { id } });
  // A concurrent apply of the same request may finalize or pay the invoice between our read and
  // our call (a 409 from lib/invoices): what counts is the invoice as it stands afterwards.
  const settled = async (step: () => Promise<InvoiceWithLines>, done: (status: string) => boolean) => {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof ServiceError) || error.category !== "conflict") throw error;
      const now = await getInvoice({ ctx, input: { id } });
      if (done(now.invoice.status)) return now;
      throw error;
    }
  };
  if (invoice.invoice.status === "draft") {
    invoice = await settled(() => finalizeInvoice({ ctx, input: { id } }), (status) => status !== "draft");
  }
  if (invoice.invoice.status === "open" || invoice.invoice.status === "uncollectible") {
    invoice = await settled(() => payInvoice({ ctx, input: { id, payment: { payment_method: method } } }), (status) => status === "paid");
  }
  if (invoice.invoice.status !== "paid") {
    const reason = (await collectionFailure(invoice)).replace(/\.$/, "");
    await recordError(ctx, request, `Payment not collected: ${reason}.`);
    throw new ServiceError(
      "conflict",
      `The ${request.amountDueNowAtom} ${request.currency} atoms due now for change request '${request.id}' were not collected: ${reason}. Nothing was applied and the change request is still open; apply it again (with another payment_method) or cancel it.`,
      { change_request_id: request.id, invoice_id: invoiceId, payment_intent: invoice.paymentIntent ?? null },
    );
  }
  return inChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    if (locked.paymentCollectedAt !== null) return locked;
    // The customer paid: the change goes ahead even if a cancel slipped in meanwhile.
    const [row] = await tx
      .update(table)
      .set({ paymentCollectedAt: ctx.now(), status: "partially_applied", lastError: null, updated: ctx.now() })
      .where(eq(table.id, locked.id))
      .returning();
    return row!;
  });
}

/** The error a failed step answers: PARTIAL_APPLY_RETRYABLE once anything happened, else the step's own refusal. */
async function stepFailure(ctx: ServiceContext, request: ChangeRequestRow, error: unknown): Promise<unknown> {
  if (!(error instanceof ServiceError)) console.error(`change request ${request.id}: a step failed`, error);
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
  return inChangeTransaction(async (tx) => {
    // The request's lock orders concurrent applies: a step is never applied twice.
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    // Canceled by a concurrent call after this apply's checks (possible only while nothing was collected).
    if (locked.status === "canceled") assertNotFinished(locked);
    const index = locked.steps.findIndex((step) => step.state === "pending");
    if (index === -1) return null;
    const before = await lockSubscriptionForChange(tx, ctx.accountId, locked.subscriptionId);
    assertChangeable(before.subscription);
    if (index === failStep) throw new ServiceError("conflict", `Step ${index} failed on purpose (sandbox_fail_step: ${failStep}).`);
    const context = { executor: tx, accountId: ctx.accountId, schedule: await subscriptionScheduleOf(tx, before.items) };
    const planned = await planStep(context, await plannedItems(tx, before.items), locked.steps[index]!, index);
    const now = ctx.now();
    const { itemId } = await applyItemChange(tx, ctx, before, planned.change, now);
    const steps = locked.steps.map((step, i) => (i === index ? { ...step, item: step.item ?? itemId, state: "applied" as const } : step));
    const done = steps.every((step) => step.state === "applied");
    const [row] = await tx
      .update(table)
      .set({
        steps,
        appliedSteps: locked.appliedSteps + 1,
        status: done ? "applied" : "partially_applied",
        appliedAt: done ? now : null,
        lastError: null,
        updated: now,
      })
      .where(eq(table.id, locked.id))
      .returning();
    return row!;
  });
}

function assertNotFinished(request: ChangeRequestRow): void {
  if (request.status === "applied" || request.status === "canceled") {
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
  if (input.paymentMethod !== undefined) checkSandboxPaymentMethod(ctx.livemode, input.paymentMethod, "payment_method");
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
      amounts = await preview(db, ctx, current, request.steps, request.prorationDate);
    } catch (error) {
      throw error instanceof ServiceError && error.category === "validation" ? noLongerApplies(request, error) : error;
    }
    if (amounts.amountDueNowAtom !== request.amountDueNowAtom || amounts.nextInvoiceAmountAtom !== request.nextInvoiceAmountAtom) {
      throw new ServiceError(
        "conflict",
        `Subscription '${current.subscription.id}' changed after change request '${request.id}' was previewed (its amounts would now be ${amounts.amountDueNowAtom} due now and ${amounts.nextInvoiceAmountAtom} per period); cancel it and create a new one.`,
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
        : `Change request '${request.id}' is ${request.status}; only open change requests can be canceled.`,
    );
  const request = await getChangeRequest({ ctx, input });
  if (request.status !== "open" || request.paymentCollectedAt !== null) throw refuse(request);
  if (request.invoiceId !== null) {
    const invoice = await getInvoice({ ctx, input: { id: request.invoiceId } });
    if (invoice.invoice.status === "open" || invoice.invoice.status === "uncollectible") {
      await voidInvoice({ ctx, input: { id: request.invoiceId } });
    } else if (invoice.invoice.status === "paid") {
      throw new ServiceError("conflict", `The proration invoice '${request.invoiceId}' of change request '${request.id}' is paid; apply the change request to finish it.`);
    }
  }
  return inChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, input.subscriptionId, input.id);
    if (locked.status !== "open" || locked.paymentCollectedAt !== null) throw refuse(locked);
    const [row] = await tx.update(table).set({ status: "canceled", updated: ctx.now() }).where(eq(table.id, locked.id)).returning();
    return row!;
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
  const steps: ChangeStepInputValue[] = [];
  if (keep.priceId !== input.price) steps.push({ type: "switch_price", item: keep.id, price: input.price });
  if (keep.quantity !== quantity) steps.push({ type: "set_quantity", item: keep.id, quantity });
  for (const item of current.items) if (item.id !== keep.id) steps.push({ type: "remove_item", item: item.id });
  if (steps.length === 0) {
    if (input.paymentMethod !== undefined) checkSandboxPaymentMethod(ctx.livemode, input.paymentMethod, "payment_method");
    return current;
  }
  let request: ChangeRequestRow;
  try {
    request = await createChangeRequest({ ctx, input: { subscriptionId: current.subscription.id, steps, metadata: { source: "change-plan" } } });
  } catch (error) {
    throw asChangePlanError(error);
  }
  await applyChangeRequest({ ctx, input: { subscriptionId: request.subscriptionId, id: request.id, paymentMethod: input.paymentMethod } });
  return getSubscription({ ctx, input: { id: request.subscriptionId } });
}
