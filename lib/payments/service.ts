import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { customers, paymentIntents } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { confirmLocked, notifyInvoice } from "./confirm";
import { checkPaymentMethod, lockIntent, missingPaymentMethod, recordPayment, transition } from "./core";
import { processorNamed } from "./processors/registry";
import { canCancelIntent, type IntentStatus } from "./statuses";
import type { PaymentIntentCreateInput } from "./schema";
import { serializePaymentIntent, type PaymentIntentRow } from "./serialize";

/* Payment intents: create, capture, cancel, read, list. Confirming one: confirm.ts; its payments: payments.ts. */

export type CreatePaymentIntentInput = z.output<typeof PaymentIntentCreateInput> & {
  /** Set by invoices paying themselves; clients cannot set it. */
  invoice?: string | null;
  /** A merchant-initiated charge (an invoice paid with a saved method): the customer is not there to authenticate. Internal only. */
  offSession?: boolean;
};

/** Creates an intent (payment_intent.created); with `confirm: true` confirms it in the same transaction. */
export async function createPaymentIntent({
  ctx,
  input,
  tx,
}: Verb<CreatePaymentIntentInput> & WithinChange): Promise<PaymentIntentRow> {
  const captureMethod = input.capture_method ?? "automatic";
  if (input.confirm && !input.payment_method) throw missingPaymentMethod();
  // Refused (422) before anything is written; confirmLocked asks the registry again in the transaction.
  if (input.payment_method) await checkPaymentMethod(tx ?? (await getDb()), ctx, input.payment_method, captureMethod);
  return withChangeTransaction(async (tx) => {
    if (input.customer !== undefined) {
      const [customer] = await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
      if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    const now = ctx.now();
    const row = one(await tx
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
      .returning());
    await emitEvent(tx, ctx, {
      type: "payment_intent.created",
      aggregateId: row.id,
      data: serializePaymentIntent(row, ctx.livemode),
      previousData: null,
    });
    if (!input.confirm) return row;
    return confirmLocked(tx, ctx, row, input.payment_method, input.offSession ?? false);
  }, tx);
}

/** Captures an authorized (requires_capture) intent: a payment of the captured amount, then succeeded. */
export async function capturePaymentIntent({
  ctx,
  input,
}: Verb<{ id: string; amountToCapture?: number }>): Promise<PaymentIntentRow> {
  return withChangeTransaction(async (tx) => {
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
    const processor = await processorNamed(tx, ctx.accountId, before.processor);
    if (!processor) throw new ServiceError("conflict", `The payment processor that authorized this payment intent (${before.processor}) is no longer connected.`);
    const captured = await processor.capture({ reference: before.processorReference, amountAtom, idempotencyKey: `${before.id}-capture` });
    if (captured.status !== "succeeded") {
      throw new ServiceError("conflict", `The payment processor did not capture this payment intent (its charge is ${captured.status}).`);
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
  return withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    if (!canCancelIntent(before.status)) {
      throw new ServiceError("conflict", `A payment intent whose status is ${before.status} cannot be canceled.`);
    }
    // A charge at a processor is canceled there first (its authorization released); the sandbox has none.
    const processor = await processorNamed(tx, ctx.accountId, before.processor);
    if (processor && before.processorReference !== null) {
      await processor.cancel({ reference: before.processorReference, idempotencyKey: `${before.id}-cancel` });
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
  const list = listQuery("payment_intents", ctx.accountId, { status: input.status, customer: input.customer });
  return pageOf(list.table, list.where, input, list.options);
}
