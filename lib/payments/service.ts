import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { customers, paymentIntents } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { atProcessor } from "./charge-attempts";
import { notifyInvoice } from "./charge-state";
import { confirmLocked } from "./confirm";
import { checkPaymentMethod, lockIntent, missingPaymentMethod, readIntent, recordPayment, transition } from "./core";
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
  if (input.payment_method) await checkPaymentMethod(tx ?? (await getDb()), ctx, input.payment_method, captureMethod, input.customer ?? null);
  let recorded: string | null = null;
  const change = withChangeTransaction(async (tx) => {
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
    recorded = row.id;
    await emitEvent(tx, ctx, {
      type: "payment_intent.created",
      aggregateId: row.id,
      data: serializePaymentIntent(row, ctx.livemode),
      previousData: null,
    });
    if (!input.confirm) return row;
    return confirmLocked(tx, ctx, row, input.payment_method, input.offSession ?? false);
  }, tx);
  let created: PaymentIntentRow;
  try {
    created = await change;
  } catch (error) {
    // The processor could not be reached after the intent was committed with its charge in flight:
    // answer the intent (confirming it again sends the same key), not a 503 whose retry would make a second one.
    const committed = error instanceof ServiceError && error.category === "unavailable" && recorded !== null && !tx ? await readIntent(ctx.accountId, recorded).catch(() => null) : null;
    if (committed?.chargeInFlight) return committed;
    throw error;
  }
  // A network processor's charge ran after the commit: answer what it ended in.
  return tx || !input.confirm ? created : readIntent(ctx.accountId, created.id);
}

/**
 * Captures an authorized (requires_capture) intent: a payment of the captured amount, then
 * succeeded. The processor captures first, outside our transaction (keyed `pi_…-capture`, so a
 * retry captures once); the capture is then recorded under the intent's lock, unless the
 * processor's webhook recorded it already.
 */
export async function capturePaymentIntent({
  ctx,
  input,
}: Verb<{ id: string; amountToCapture?: number }>): Promise<PaymentIntentRow> {
  const checked = await getPaymentIntent({ ctx, input: { id: input.id } });
  const amountAtom = captureAmount(checked, input.amountToCapture);
  const processor = await processorNamed(await getDb(), ctx.accountId, checked.processor);
  if (!processor) throw new ServiceError("conflict", `The payment processor that authorized this payment intent (${checked.processor}) is no longer connected.`);
  const capture = () => processor.capture({ reference: checked.processorReference, amountAtom, idempotencyKey: `${checked.id}-capture` });
  const remote = processor.remote ? await atProcessor(capture) : null;
  return withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    // The processor's webhook (re-read) recorded this very capture while we were asking.
    if (remote && before.status === "succeeded" && before.processorReference === checked.processorReference) return before;
    captureAmount(before, input.amountToCapture);
    const captured = remote ?? (await capture());
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
      reconcileAt: null,
    });
    await notifyInvoice(tx, ctx, before, after);
    return after;
  });
}

/** What a capture takes (all that is capturable unless told), or the 409/422 refusing it. */
function captureAmount(intent: PaymentIntentRow, amountToCapture: number | undefined): number {
  if (intent.status !== "requires_capture") {
    throw new ServiceError("conflict", `Only a payment intent in requires_capture can be captured; this one is ${intent.status}.`);
  }
  const amountAtom = amountToCapture ?? intent.amountCapturableAtom;
  if (amountAtom > intent.amountCapturableAtom) {
    throw validationFailed([{ field: "amount_to_capture", message: `Must be at most amount_capturable_atom (${intent.amountCapturableAtom}).` }]);
  }
  return amountAtom;
}

/**
 * Cancels an intent. A charge at a network processor is canceled there first, outside our
 * transaction (keyed `pi_…-cancel`), then the intent under its lock; one with a charge in flight
 * is refused (409) until that charge's outcome is known.
 */
export async function cancelPaymentIntent({ ctx, input }: Verb<{ id: string }>): Promise<PaymentIntentRow> {
  const checked = await getPaymentIntent({ ctx, input: { id: input.id } });
  refuseCancel(checked);
  const processor = await processorNamed(await getDb(), ctx.accountId, checked.processor);
  if (processor?.remote && checked.processorReference !== null) {
    await atProcessor(() => processor.cancel({ reference: checked.processorReference, idempotencyKey: `${checked.id}-cancel` }));
  }
  return withChangeTransaction(async (tx) => {
    const before = await lockIntent(tx, ctx.accountId, input.id);
    // The processor's webhook (re-read) recorded this very cancellation while we were asking.
    if (before.status === "canceled" && processor?.remote) return before;
    refuseCancel(before);
    return transition(tx, ctx, before, "payment_intent.canceled", {
      status: "canceled",
      canceledAt: ctx.now(),
      amountCapturableAtom: 0,
      reconcileAt: null,
    });
  });
}

function refuseCancel(intent: PaymentIntentRow): void {
  if (intent.chargeInFlight) {
    throw new ServiceError("conflict", `A charge of this payment intent is in flight at ${intent.chargeInFlight.processor}; cancel it once its outcome is known.`, { retryable: true });
  }
  if (!canCancelIntent(intent.status)) {
    throw new ServiceError("conflict", `A payment intent whose status is ${intent.status} cannot be canceled.`);
  }
}

/** The invoice's payment intent whose charge is in flight at a network processor, if any. */
export async function chargeInFlightOfInvoice(db: Executor, accountId: string, invoiceId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: paymentIntents.id })
    .from(paymentIntents)
    .where(and(eq(paymentIntents.accountId, accountId), eq(paymentIntents.invoiceId, invoiceId), isNotNull(paymentIntents.chargeInFlight)))
    .limit(1);
  return row?.id ?? null;
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
