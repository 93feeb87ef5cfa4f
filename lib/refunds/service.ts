import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { paymentIntents, refunds } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { recordInvoiceRefund } from "@/lib/invoices/payment-hooks";
import { REFUND_FAILURE_MESSAGE, refundSucceeds } from "@/lib/payments/processors/sandbox/methods";
import { lockPaymentForRefund, markPaymentRefunded } from "@/lib/payments/payments";
import { one } from "@/lib/rows";
import { refundRefusal } from "./rules";
import type { RefundCreateInput } from "./schema";
import { serializeRefund, type RefundRow } from "./serialize";

/**
 * Refunds a payment. The refund is created pending (refund.created), then the sandbox settles it
 * in the same transaction: succeeded (refund.updated, payment.refunded) or failed (refund.failed).
 * The payment row is locked first, so concurrent refunds never exceed the payment. A post-payment
 * credit note refunds through here, in its own transaction (`tx`).
 */
export async function createRefund({ ctx, input, tx: outer }: Verb<z.output<typeof RefundCreateInput>> & WithinChange): Promise<RefundRow> {
  return withChangeTransaction(async (tx) => {
    const payment = await lockPaymentForRefund(tx, ctx.accountId, input.payment);
    if (!payment) throw validationFailed([{ field: "payment", message: `No such payment: '${input.payment}'.` }]);
    const refusal = refundRefusal(payment);
    if (refusal === "failed") throw new ServiceError("conflict", "A failed payment cannot be refunded.");
    if (refusal === "fully_refunded") throw new ServiceError("conflict", "The payment is already fully refunded.");
    const remainingAtom = payment.amountAtom - payment.amountRefundedAtom;
    const amountAtom = input.amount_atom ?? remainingAtom;
    if (amountAtom > remainingAtom) {
      throw validationFailed([
        { field: "amount_atom", message: `Must be at most the payment's unrefunded amount (${remainingAtom}).` },
      ]);
    }

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
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitEvent(tx, ctx, {
      type: "refund.created",
      aggregateId: pending.id,
      data: serializeRefund(pending, ctx.livemode),
      previousData: null,
    });

    const succeeded = refundSucceeds(payment.paymentMethod);
    const settled = one(await tx
      .update(refunds)
      .set(
        succeeded
          ? { status: "succeeded", updated: ctx.now() }
          : { status: "failed", failureReason: REFUND_FAILURE_MESSAGE, updated: ctx.now() },
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
      await markPaymentRefunded(tx, ctx, payment, amountAtom);
      // A payment of an invoice's intent: the invoice hears of it (invoice.refunded; it stays paid).
      const [intent] = await tx
        .select({ invoiceId: paymentIntents.invoiceId })
        .from(paymentIntents)
        .where(eq(paymentIntents.id, payment.paymentIntentId));
      if (intent?.invoiceId) await recordInvoiceRefund(tx, ctx, intent.invoiceId);
    }
    return settled;
  }, outer);
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
