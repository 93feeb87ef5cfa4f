import { and, eq } from "drizzle-orm";
import { paymentIntents, payments } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import type { EventType } from "@/lib/events/catalogue";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { getDb, type Executor } from "@/db/client";
import { resolvePaymentMethod, type ChargeMethod } from "./processors/registry";
import { serializePayment, serializePaymentIntent, type PaymentIntentRow, type PaymentRow } from "./serialize";

/* What the payment-intent verbs share (service.ts, confirm.ts): statuses, the method check, the locked read, one transition with its event, one charge. */


export const missingPaymentMethod = () =>
  new ServiceError("bad_request", "Missing required field: payment_method.", {
    errors: [{ field: "payment_method", message: "Required." }],
  });

/**
 * The processor that charges `method` for `customerId` on this account, and the method as it knows
 * it (lib/payments/processors/registry.ts), or a 422 on `payment_method`.
 */
export async function checkPaymentMethod(
  db: Executor,
  ctx: ServiceContext,
  method: string,
  captureMethod: "automatic" | "manual",
  customerId: string | null,
): Promise<ChargeMethod> {
  return resolvePaymentMethod(db, ctx, method, captureMethod, { customerId });
}

/** The intent as committed (after a change whose charge ran after its commit). */
export async function readIntent(accountId: string, id: string): Promise<PaymentIntentRow> {
  const [row] = await (await getDb()).select().from(paymentIntents).where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.id, id)));
  if (!row) throw notFound("payment intent", id);
  return row;
}

export async function lockIntent(tx: ChangeTransaction, accountId: string, id: string): Promise<PaymentIntentRow> {
  const [row] = await tx
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.id, id)))
    .for("update");
  if (!row) throw notFound("payment intent", id);
  return row;
}

/** Writes one transition of the intent and its event (data = after, previous_data = before). */
export async function transition(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  before: PaymentIntentRow,
  type: EventType,
  changes: Partial<Omit<PaymentIntentRow, "id" | "accountId" | "created">>,
): Promise<PaymentIntentRow> {
  const after = one(await tx
    .update(paymentIntents)
    .set({ ...changes, updated: ctx.now() })
    .where(eq(paymentIntents.id, before.id))
    .returning());
  await emitEvent(tx, ctx, {
    type,
    aggregateId: before.id,
    data: serializePaymentIntent(after, ctx.livemode),
    previousData: serializePaymentIntent(before, ctx.livemode),
  });
  return after;
}

/** A charge of the intent's method: payment.succeeded or payment.failed. */
export async function recordPayment(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  intent: PaymentIntentRow,
  payment: { amountAtom: number; paymentMethod: string; failureMessage?: string | undefined },
): Promise<PaymentRow> {
  const now = ctx.now();
  const row = one(await tx
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
    .returning());
  await emitEvent(tx, ctx, {
    type: payment.failureMessage ? "payment.failed" : "payment.succeeded",
    aggregateId: row.id,
    data: serializePayment(row, ctx.livemode),
    previousData: null,
  });
  return row;
}
