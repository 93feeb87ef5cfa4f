import { and, desc, eq, inArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { disputes, paymentIntents, payments } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import type { DisputeState } from "@/lib/payments/processors/types";
import { one } from "@/lib/rows";
import { serializeDispute, type DisputeRow } from "./serialize";
import { isClosedDispute } from "./statuses";

/*
 * Disputes (docs/payments.md, "Disputes"): made and moved only by the processor's webhooks, each
 * re-read at the processor (lib/payment-processor/events.ts) and applied here once.
 */

/** The payment a processor's dispute is about: the latest that moved money of our intent whose processor reference is `paymentReference`. */
async function disputedPayment(accountId: string, paymentReference: string): Promise<{ id: string; paymentIntentId: string } | null> {
  const db = await getDb();
  const [payment] = await db
    .select({ id: payments.id, paymentIntentId: payments.paymentIntentId })
    .from(payments)
    .innerJoin(paymentIntents, eq(paymentIntents.id, payments.paymentIntentId))
    .where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.processorReference, paymentReference), inArray(payments.status, ["succeeded", "refunded", "partially_refunded"])))
    .orderBy(desc(payments.created), desc(payments.id))
    .limit(1);
  return payment ?? null;
}

/**
 * Brings our dispute to the processor's state, once. The first state seen makes it
 * (`dispute.created`, and `dispute.closed` too when it is closed already: its webhooks came late or
 * out of order); a later one that changes it emits `dispute.updated`, or `dispute.closed` when it
 * closes it. The same state again changes nothing, and a closed dispute never moves (a late
 * webhook re-reads a closed dispute anyway). Ignored: a state of a payment that is not ours, or a
 * status the interface does not know.
 */
export async function applyDisputeState(ctx: ServiceContext, processor: string, state: DisputeState): Promise<"applied" | "ignored"> {
  const status = state.status;
  if (status === null || state.paymentReference === null) return "ignored";
  const payment = await disputedPayment(ctx.accountId, state.paymentReference);
  if (!payment) return "ignored";
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const fields = { amountAtom: state.amountAtom, currency: state.currency.toLowerCase(), reason: state.reason, status, evidenceDueBy: state.evidenceDueBy };
    const [inserted] = await tx
      .insert(disputes)
      .values({ id: newId("dispute"), accountId: ctx.accountId, paymentId: payment.id, paymentIntentId: payment.paymentIntentId, processor, processorReference: state.reference, ...fields, created: now, updated: now })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      const data = serializeDispute(inserted, ctx.livemode);
      await emitEvent(tx, ctx, { type: "dispute.created", aggregateId: inserted.id, data, previousData: null });
      if (isClosedDispute(inserted.status)) await emitEvent(tx, ctx, { type: "dispute.closed", aggregateId: inserted.id, data, previousData: null });
      return "applied";
    }
    const [before] = await tx
      .select()
      .from(disputes)
      .where(and(eq(disputes.accountId, ctx.accountId), eq(disputes.processor, processor), eq(disputes.processorReference, state.reference)))
      .for("update");
    if (!before || isClosedDispute(before.status)) return "ignored";
    const unchanged =
      before.amountAtom === fields.amountAtom &&
      before.currency === fields.currency &&
      before.reason === fields.reason &&
      before.status === fields.status &&
      (before.evidenceDueBy?.getTime() ?? null) === (fields.evidenceDueBy?.getTime() ?? null);
    if (unchanged) return "ignored";
    const after = one(await tx.update(disputes).set({ ...fields, updated: now }).where(eq(disputes.id, before.id)).returning());
    await emitEvent(tx, ctx, {
      type: isClosedDispute(after.status) ? "dispute.closed" : "dispute.updated",
      aggregateId: after.id,
      data: serializeDispute(after, ctx.livemode),
      previousData: serializeDispute(before, ctx.livemode),
    });
    return "applied";
  });
}

export async function getDispute({ ctx, input }: Verb<{ id: string }>): Promise<DisputeRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.accountId, ctx.accountId), eq(disputes.id, input.id)));
  if (!row) throw notFound("dispute", input.id);
  return row;
}

/** Newest first; `payment` and `payment_intent` walk their own `(…, created, id)` indexes (a payment has few disputes). */
export async function listDisputes({ ctx, input }: Verb<Page & { payment?: string; payment_intent?: string }>): Promise<{ rows: DisputeRow[] } & PageInfo> {
  const where = and(
    eq(disputes.accountId, ctx.accountId),
    input.payment ? eq(disputes.paymentId, input.payment) : undefined,
    input.payment_intent ? eq(disputes.paymentIntentId, input.payment_intent) : undefined,
  );
  return pageOf(disputes, where, input);
}
