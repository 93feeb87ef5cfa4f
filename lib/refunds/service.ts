import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { paymentIntents, payments, refunds } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { recordInvoiceRefund } from "@/lib/invoices/payment-hooks";
import { REFUND_FAILURE_MESSAGE, refundSucceeds } from "@/lib/payments/processors/sandbox/methods";
import { atProcessor, RECONCILE_AFTER_MS } from "@/lib/payments/charge-attempts";
import { lockPaymentForRefund, markPaymentRefunded } from "@/lib/payments/payments";
import { processorNamed } from "@/lib/payments/processors/registry";
import type { RefundState } from "@/lib/payments/processors/types";
import type { PaymentRow } from "@/lib/payments/serialize";
import { one } from "@/lib/rows";
import { refundRefusal } from "./rules";
import type { RefundCreateInput } from "./schema";
import { serializeRefund, type RefundRow } from "./serialize";

/**
 * Refunds a payment. The refund is created pending (refund.created). The sandbox settles it in the
 * same transaction: succeeded (refund.updated, payment.refunded) or failed (refund.failed). A
 * payment charged through a network processor (Stripe) is refunded there after the commit (keyed
 * by our refund's id), and stays pending until the processor settles it: its answer, or its
 * webhook re-read (`applyRefundState`). The payment row is locked first, and pending refunds count
 * against it, so concurrent refunds never exceed the payment. A post-payment credit note refunds
 * through here, in its own transaction (`tx`).
 */
export async function createRefund({ ctx, input, tx: outer }: Verb<z.output<typeof RefundCreateInput>> & WithinChange): Promise<RefundRow> {
  let recorded: string | null = null;
  const change = withChangeTransaction(async (tx) => {
    const payment = await lockPaymentForRefund(tx, ctx.accountId, input.payment);
    if (!payment) throw validationFailed([{ field: "payment", message: `No such payment: '${input.payment}'.` }]);
    const refusal = refundRefusal(payment);
    if (refusal === "failed") throw new ServiceError("conflict", "A failed payment cannot be refunded.");
    if (refusal === "fully_refunded") throw new ServiceError("conflict", "The payment is already fully refunded.");
    const [pendingSum] = await tx
      .select({ atom: sql<number>`coalesce(sum(${refunds.amountAtom}), 0)`.mapWith(Number) })
      .from(refunds)
      .where(and(eq(refunds.paymentId, payment.id), eq(refunds.status, "pending")));
    const remainingAtom = payment.amountAtom - payment.amountRefundedAtom - (pendingSum?.atom ?? 0);
    const amountAtom = input.amount_atom ?? remainingAtom;
    if (amountAtom > remainingAtom) {
      throw validationFailed([
        { field: "amount_atom", message: `Must be at most the payment's unrefunded amount (${remainingAtom}).` },
      ]);
    }
    const [intent] = await tx.select({ processor: paymentIntents.processor }).from(paymentIntents).where(eq(paymentIntents.id, payment.paymentIntentId));
    const processor = await processorNamed(tx, ctx.accountId, intent?.processor ?? null);

    const now = ctx.now();
    const pending = one(await tx
      .insert(refunds)
      .values({
        id: newId("refund"),
        accountId: ctx.accountId,
        paymentId: payment.id,
        amountAtom,
        currency: payment.currency,
        status: "pending",
        reason: input.reason ?? null,
        processor: processor?.remote ? processor.name : null,
        // Re-sent or re-read by the reconciliation job if no answer settles it first (./reconcile.ts).
        reconcileAt: processor?.remote ? new Date(now.getTime() + RECONCILE_AFTER_MS) : null,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    recorded = pending.id;
    await emitEvent(tx, ctx, {
      type: "refund.created",
      aggregateId: pending.id,
      data: serializeRefund(pending, ctx.livemode),
      previousData: null,
    });
    if (processor?.remote) {
      // Never while our transaction is open: sent once it commits (docs/payments.md).
      tx.afterCommit(() => sendRefund(ctx, pending.id).then(() => undefined));
      return pending;
    }
    const succeeded = refundSucceeds(payment.paymentMethod);
    return settle(tx, ctx, pending, payment, succeeded ? { status: "succeeded", reference: null } : { status: "failed", reference: null, message: REFUND_FAILURE_MESSAGE });
  }, outer);
  try {
    const refund = await change;
    return outer || refund.processor === null ? refund : await readRefund(ctx.accountId, refund.id);
  } catch (error) {
    // The processor could not be reached after the refund was committed: it is pending (a 503 would invite a second refund).
    if (error instanceof ServiceError && error.category === "unavailable" && recorded !== null && !outer) return readRefund(ctx.accountId, recorded);
    throw error;
  }
}

async function readRefund(accountId: string, id: string): Promise<RefundRow> {
  const [row] = await (await getDb()).select().from(refunds).where(and(eq(refunds.accountId, accountId), eq(refunds.id, id)));
  if (!row) throw notFound("refund", id);
  return row;
}

/** Settles a pending refund, in the payment's lock: refund.updated and payment.refunded (and invoice.refunded), or refund.failed. */
async function settle(tx: ChangeTransaction, ctx: ServiceContext, pending: RefundRow, payment: PaymentRow, state: RefundState): Promise<RefundRow> {
  if (state.status === "pending") return pending;
  const succeeded = state.status === "succeeded";
  const settled = one(await tx
    .update(refunds)
    .set(
      state.status === "failed"
        ? { status: "failed", failureReason: state.message, reconcileAt: null, updated: ctx.now() }
        : { status: "succeeded", reconcileAt: null, updated: ctx.now() },
    )
    .where(eq(refunds.id, pending.id))
    .returning());
  await emitEvent(tx, ctx, {
    type: succeeded ? "refund.updated" : "refund.failed",
    aggregateId: pending.id,
    data: serializeRefund(settled, ctx.livemode),
    previousData: serializeRefund(pending, ctx.livemode),
  });
  if (succeeded) {
    await markPaymentRefunded(tx, ctx, payment, pending.amountAtom);
    // A payment of an invoice's intent: the invoice hears of it (invoice.refunded; it stays paid).
    const [intent] = await tx
      .select({ invoiceId: paymentIntents.invoiceId })
      .from(paymentIntents)
      .where(eq(paymentIntents.id, payment.paymentIntentId));
    if (intent?.invoiceId) await recordInvoiceRefund(tx, ctx, intent.invoiceId);
  }
  return settled;
}

/** Sends a pending refund to its processor (no transaction of ours open meanwhile) and applies the answer. */
export async function sendRefund(ctx: ServiceContext, refundId: string): Promise<RefundRow | null> {
  const db = await getDb();
  const [refund] = await db.select().from(refunds).where(and(eq(refunds.accountId, ctx.accountId), eq(refunds.id, refundId)));
  if (!refund || refund.status !== "pending" || refund.processor === null) return refund ?? null;
  const [payment] = await db.select().from(payments).where(eq(payments.id, refund.paymentId));
  const [intent] = await db.select({ reference: paymentIntents.processorReference }).from(paymentIntents).where(eq(paymentIntents.id, payment!.paymentIntentId));
  const processor = await processorNamed(db, ctx.accountId, refund.processor);
  if (!processor) throw new ServiceError("conflict", `The payment processor of this refund (${refund.processor}) is no longer connected.`);
  const state = await atProcessor(() => processor.refund({ reference: intent?.reference ?? null, paymentMethod: payment!.paymentMethod, amountAtom: refund.amountAtom, refundId }));
  return applyRefundState(ctx, refundId, state);
}

/**
 * Brings a pending refund to the processor's state, once: the answer to the refund and its
 * webhook (re-read) both come here; a settled refund never moves again, a pending state only
 * records the processor's id.
 */
export async function applyRefundState(ctx: ServiceContext, refundId: string, state: RefundState): Promise<RefundRow> {
  return withChangeTransaction(async (tx) => {
    const [unlocked] = await tx.select({ paymentId: refunds.paymentId }).from(refunds).where(and(eq(refunds.accountId, ctx.accountId), eq(refunds.id, refundId)));
    if (!unlocked) throw notFound("refund", refundId);
    // The payment first, as createRefund locks it: refunds of one payment serialize.
    const payment = (await lockPaymentForRefund(tx, ctx.accountId, unlocked.paymentId))!;
    let [before] = await tx.select().from(refunds).where(eq(refunds.id, refundId)).for("update");
    if (state.reference !== null && before!.processorReference === null) {
      [before] = await tx.update(refunds).set({ processorReference: state.reference }).where(eq(refunds.id, refundId)).returning();
    }
    if (before!.status !== "pending") return before!;
    return settle(tx, ctx, before!, payment, state);
  });
}

export async function getRefund({ ctx, input }: Verb<{ id: string }>): Promise<RefundRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(refunds)
    .where(and(eq(refunds.accountId, ctx.accountId), eq(refunds.id, input.id)));
  if (!row) throw notFound("refund", input.id);
  return row;
}

export async function listRefunds({
  ctx,
  input,
}: Verb<Page & { payment?: string }>): Promise<{ rows: RefundRow[] } & PageInfo> {
  const list = listQuery("refunds", ctx.accountId, { payment: input.payment });
  return pageOf(list.table, list.where, input, list.options);
}
