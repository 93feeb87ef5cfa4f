import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { payments } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { serializePayment, type PaymentRow } from "./serialize";

/* Payments (the charges of intents): reads, and the refund bookkeeping lib/refunds does in its transaction. */

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
  const list = listQuery("payments", ctx.accountId, { payment_intent: input.payment_intent });
  return pageOf(list.table, list.where, input, list.options);
}

/** The payment, locked for update: refunds of one payment serialize, so they never exceed it. */
export async function lockPaymentForRefund(tx: ChangeTransaction, accountId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.accountId, accountId), eq(payments.id, id)))
    .for("update");
  return row;
}

/** Records a successful refund on its payment: payment.refunded. */
export async function markPaymentRefunded(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentRow,
  amountAtom: number,
): Promise<PaymentRow> {
  const refunded = before.amountRefundedAtom + amountAtom;
  const after = one(await tx
    .update(payments)
    .set({
      amountRefundedAtom: refunded,
      status: refunded >= before.amountAtom ? "refunded" : "partially_refunded",
      updated: ctx.now(),
    })
    .where(eq(payments.id, before.id))
    .returning());
  await emitEvent(tx, ctx, {
    type: "payment.refunded",
    aggregateId: before.id,
    data: serializePayment(after, ctx.livemode),
    previousData: serializePayment(before, ctx.livemode),
  });
  return after;
}
