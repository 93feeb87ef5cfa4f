import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Transaction } from "@/db/client";
import { pageOf } from "@/db/page";
import { customers, paymentIntents, payments } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { EventType } from "@/lib/events/catalogue";
import { inChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { applyPaymentIntentOutcome } from "@/lib/invoices/payment-hooks";
import { checkSandboxPaymentMethod, confirmOutcome, type SandboxPaymentMethod } from "./sandbox";
import type { PAYMENT_INTENT_STATUSES, PaymentIntentCreateInput } from "./schema";
import { serializePayment, serializePaymentIntent, type PaymentIntentRow, type PaymentRow } from "./serialize";

/**
 * The verbs below may run inside a caller's transaction (an invoice being paid passes its own
 * `tx`), so the caller's change and the payment's commit together; without one they open their
 * own with inChangeTransaction. Either way their events go through emitEvent in that transaction.
 */
export type InTransaction = { tx?: Transaction };

function inTransaction<T>(tx: Transaction | undefined, change: (tx: Transaction) => Promise<T>): Promise<T> {
  return tx ? change(tx) : inChangeTransaction(change);
}

type IntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];
const CONFIRMABLE: readonly IntentStatus[] = ["requires_payment_method", "requires_confirmation", "requires_action", "partially_funded"];
const CANCELABLE: readonly IntentStatus[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "requires_capture",
  "partially_funded",
];

const missingPaymentMethod = () =>
  new ServiceError("bad_request", "Missing required field: payment_method.", {
    errors: [{ field: "payment_method", message: "Required." }],
  });

function checkPaymentMethod(ctx: ServiceContext, method: string, captureMethod: "automatic" | "manual"): SandboxPaymentMethod {
  const checked = checkSandboxPaymentMethod(ctx.livemode, method);
  // Partial funding models a transfer that arrives in parts: there is no authorization to capture.
  if (method === "pm_sandbox_partially_funded" && captureMethod === "manual") {
    throw validationFailed([{ field: "payment_method", message: "pm_sandbox_partially_funded does not support capture_method manual." }]);
  }
  return checked;
}

export type CreatePaymentIntentInput = z.output<typeof PaymentIntentCreateInput> & {
  /** Set by invoices paying themselves; clients cannot set it. */
  invoice?: string | null;
};

/** Creates an intent (payment_intent.created); with `confirm: true` confirms it in the same transaction. */
export async function createPaymentIntent({
  ctx,
  input,
  tx,
}: Verb<CreatePaymentIntentInput> & InTransaction): Promise<PaymentIntentRow> {
  const captureMethod = input.capture_method ?? "automatic";
  if (input.confirm && !input.payment_method) throw missingPaymentMethod();
  if (input.payment_method) checkPaymentMethod(ctx, input.payment_method, captureMethod);
  return inTransaction(tx, async (tx) => {
    if (input.customer !== undefined) {
      const [customer] = await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
      if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    const now = ctx.now();
    const [row] = await tx
      .insert(paymentIntents)
      .values({
        id: newId("paymentIntent"),
        accountId: ctx.accountId,
        customerId: input.customer ?? null,
        invoiceId: input.invoice ?? null,
        amountAtom: input.amount_atom,
        currency: input.currency,
        status: input.payment_method ? "requires_confirmation" : "requires_payment_method",
        captureMethod,
        paymentMethod: input.payment_method ?? null,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning();
    await emitEvent(tx, ctx, {
      type: "payment_intent.created",
      aggregateId: row!.id,
      data: serializePaymentIntent(row!, ctx.livemode),
      previousData: null,
    });
    if (!input.confirm) return row!;
    return confirmLocked(tx, ctx, row!, input.payment_method);
  });
}

async function lockIntent(tx: Transaction, accountId: string, id: string): Promise<PaymentIntentRow> {
  const [row] = await tx
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.id, id)))
    .for("update");
  if (!row) throw notFound("payment intent", id);
  return row;
}

/** Writes one transition of the intent and its event (data = after, previous_data = before). */
async function transition(
  tx: Transaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  type: EventType,
  changes: Partial<Omit<PaymentIntentRow, "id" | "accountId" | "created">>,
): Promise<PaymentIntentRow> {
  const [after] = await tx
    .update(paymentIntents)
    .set({ ...changes, updated: ctx.now() })
    .where(eq(paymentIntents.id, before.id))
    .returning();
  await emitEvent(tx, ctx, {
    type,
    aggregateId: before.id,
    data: serializePaymentIntent(after!, ctx.livemode),
    previousData: serializePaymentIntent(before, ctx.livemode),
  });
  return after!;
}

/** A charge of the intent's method: payment.succeeded or payment.failed. */
async function recordPayment(
  tx: Transaction,
  ctx: ServiceContext,
  intent: PaymentIntentRow,
  payment: { amountAtom: number; paymentMethod: string; failureMessage?: string },
): Promise<PaymentRow> {
  const now = ctx.now();
  const [row] = await tx
    .insert(payments)
    .values({
      id: newId("payment"),
      accountId: ctx.accountId,
      paymentIntentId: intent.id,
      amountAtom: payment.amountAtom,
      currency: intent.currency,
      status: payment.failureMessage ? "failed" : "succeeded",
      paymentMethod: payment.paymentMethod,
      failureMessage: payment.failureMessage ?? null,
      created: now,
      updated: now,
    })
    .returning();
  await emitEvent(tx, ctx, {
    type: payment.failureMessage ? "payment.failed" : "payment.succeeded",
    aggregateId: row!.id,
    data: serializePayment(row!, ctx.livemode),
    previousData: null,
  });
  return row!;
}

/**
 * An invoice's intent tells its invoice how it ended (lib/invoices/payment-hooks.ts), in the same
 * transaction: succeeded pays it, a decline or a required action is recorded on it, partial
 * funding reduces what is due. The call goes one way: lib/invoices' hooks never import payments.
 */
async function notifyInvoice(tx: Transaction, ctx: ServiceContext, before: PaymentIntentRow, after: PaymentIntentRow): Promise<void> {
  if (after.invoiceId === null) return;
  const receivedAtom = after.amountReceivedAtom - before.amountReceivedAtom;
  switch (after.status) {
    case "succeeded":
      return applyPaymentIntentOutcome(tx, ctx, after.invoiceId, { kind: "succeeded", receivedAtom });
    case "partially_funded":
      return applyPaymentIntentOutcome(tx, ctx, after.invoiceId, { kind: "partially_funded", receivedAtom });
    case "requires_payment_method":
      return applyPaymentIntentOutcome(tx, ctx, after.invoiceId, { kind: "payment_failed" });
    case "requires_action":
      return applyPaymentIntentOutcome(tx, ctx, after.invoiceId, { kind: "requires_action" });
    default:
      // requires_capture: invoice intents capture automatically, so an authorization pays nothing yet.
      return;
  }
}

async function confirmLocked(
  tx: Transaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
): Promise<PaymentIntentRow> {
  const after = await settleConfirmation(tx, ctx, before, requestedMethod);
  await notifyInvoice(tx, ctx, before, after);
  return after;
}

async function settleConfirmation(
  tx: Transaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  requestedMethod: string | undefined,
): Promise<PaymentIntentRow> {
  if (!CONFIRMABLE.includes(before.status)) {
    throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be confirmed.`);
  }
  const requested = requestedMethod ?? before.paymentMethod;
  if (!requested) throw missingPaymentMethod();
  const method = checkPaymentMethod(ctx, requested, before.captureMethod);
  const remainingAtom = before.amountAtom - before.amountReceivedAtom;

  // Confirming again while the action is pending means the customer completed it.
  const actionCompleted = before.status === "requires_action" && method === "pm_sandbox_requires_action";
  const outcome = actionCompleted ? ({ kind: "succeeds" } as const) : confirmOutcome(method, remainingAtom);

  if (outcome.kind === "requires_action") {
    return transition(tx, ctx, before, "payment_intent.requires_action", {
      status: "requires_action",
      paymentMethod: method,
      lastPaymentError: null,
    });
  }

  const processing = await transition(tx, ctx, before, "payment_intent.processing", {
    status: "processing",
    paymentMethod: method,
    lastPaymentError: null,
  });
  switch (outcome.kind) {
    case "succeeds":
      if (before.captureMethod === "manual") {
        return transition(tx, ctx, processing, "payment_intent.amount_capturable_updated", {
          status: "requires_capture",
          amountCapturableAtom: remainingAtom,
        });
      }
      await recordPayment(tx, ctx, processing, { amountAtom: remainingAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.succeeded", {
        status: "succeeded",
        amountReceivedAtom: before.amountAtom,
      });
    case "declined":
      await recordPayment(tx, ctx, processing, { amountAtom: remainingAtom, paymentMethod: method, failureMessage: outcome.message });
      // As in Stripe, the failed method is detached: the intent needs a new one.
      return transition(tx, ctx, processing, "payment_intent.payment_failed", {
        status: "requires_payment_method",
        paymentMethod: null,
        lastPaymentError: outcome.message,
      });
    case "partially_funded":
      await recordPayment(tx, ctx, processing, { amountAtom: outcome.fundedAtom, paymentMethod: method });
      return transition(tx, ctx, processing, "payment_intent.partially_funded", {
        status: "partially_funded",
        amountReceivedAtom: before.amountReceivedAtom + outcome.fundedAtom,
      });
  }
}

/**
 * Confirms an intent with its payment method (or `paymentMethod`): the sandbox method decides the
 * outcome. Emits processing then the outcome's events in one transaction (the caller's, if given).
 */
export async function confirmPaymentIntent({
  ctx,
  input,
  tx,
}: Verb<{ id: string; paymentMethod?: string }> & InTransaction): Promise<PaymentIntentRow> {
  return inTransaction(tx, async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    return confirmLocked(tx, ctx, before, input.paymentMethod);
  });
}

/** Captures an authorized (requires_capture) intent: a payment of the captured amount, then succeeded. */
export async function capturePaymentIntent({
  ctx,
  input,
}: Verb<{ id: string; amountToCapture?: number }>): Promise<PaymentIntentRow> {
  return inChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    if (before.status !== "requires_capture") {
      throw new ServiceError(
        "conflict",
        `Only a payment intent in requires_capture can be captured; this one is ${before.status}.`,
      );
    }
    const amountAtom = input.amountToCapture ?? before.amountCapturableAtom;
    if (amountAtom > before.amountCapturableAtom) {
      throw validationFailed([
        { field: "amount_to_capture", message: `Must be at most amount_capturable_atom (${before.amountCapturableAtom}).` },
      ]);
    }
    // Set with requires_capture by confirmLocked.
    await recordPayment(tx, ctx, before, { amountAtom, paymentMethod: before.paymentMethod! });
    // The uncaptured rest is released, as in Stripe: the intent succeeds with what was captured.
    const after = await transition(tx, ctx, before, "payment_intent.succeeded", {
      status: "succeeded",
      amountReceivedAtom: before.amountReceivedAtom + amountAtom,
      amountCapturableAtom: 0,
    });
    await notifyInvoice(tx, ctx, before, after);
    return after;
  });
}

export async function cancelPaymentIntent({ ctx, input }: Verb<{ id: string }>): Promise<PaymentIntentRow> {
  return inChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    if (!CANCELABLE.includes(before.status)) {
      throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be canceled.`);
    }
    const now = ctx.now();
    return transition(tx, ctx, before, "payment_intent.canceled", {
      status: "canceled",
      canceledAt: now,
      amountCapturableAtom: 0,
    });
  });
}

export async function getPaymentIntent({ ctx, input }: Verb<{ id: string }>): Promise<PaymentIntentRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.accountId, ctx.accountId), eq(paymentIntents.id, input.id)));
  if (!row) throw notFound("payment intent", input.id);
  return row;
}

export type PaymentIntentFilters = { customer?: string; status?: IntentStatus };

export async function listPaymentIntents({
  ctx,
  input,
}: Verb<Page & PaymentIntentFilters>): Promise<{ rows: PaymentIntentRow[] } & PageInfo> {
  const conditions: (SQL | undefined)[] = [eq(paymentIntents.accountId, ctx.accountId)];
  if (input.customer !== undefined) conditions.push(eq(paymentIntents.customerId, input.customer));
  if (input.status !== undefined) conditions.push(eq(paymentIntents.status, input.status));
  const where = and(...conditions);
  return pageOf(paymentIntents, where, input);
}

export async function getPayment({ ctx, input }: Verb<{ id: string }>): Promise<PaymentRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.accountId, ctx.accountId), eq(payments.id, input.id)));
  if (!row) throw notFound("payment", input.id);
  return row;
}

export async function listPayments({
  ctx,
  input,
}: Verb<Page & { payment_intent?: string }>): Promise<{ rows: PaymentRow[] } & PageInfo> {
  const conditions: (SQL | undefined)[] = [eq(payments.accountId, ctx.accountId)];
  if (input.payment_intent !== undefined) conditions.push(eq(payments.paymentIntentId, input.payment_intent));
  const where = and(...conditions);
  return pageOf(payments, where, input);
}

/** The payment, locked for update: refunds of one payment serialize, so they never exceed it. */
export async function lockPaymentForRefund(tx: Transaction, accountId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.accountId, accountId), eq(payments.id, id)))
    .for("update");
  return row;
}

/** Records a successful refund on its payment: payment.refunded. */
export async function markPaymentRefunded(
  tx: Transaction,
  ctx: ServiceContext,
  before: PaymentRow,
  amountAtom: number,
): Promise<PaymentRow> {
  const refunded = before.amountRefundedAtom + amountAtom;
  const [after] = await tx
    .update(payments)
    .set({
      amountRefundedAtom: refunded,
      status: refunded >= before.amountAtom ? "refunded" : "partially_refunded",
      updated: ctx.now(),
    })
    .where(eq(payments.id, before.id))
    .returning();
  await emitEvent(tx, ctx, {
    type: "payment.refunded",
    aggregateId: before.id,
    data: serializePayment(after!, ctx.livemode),
    previousData: serializePayment(before, ctx.livemode),
  });
  return after!;
}
