import { and, desc, eq, isNull } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { customers, paymentMethods } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { getCustomer, setDefaultPaymentMethod } from "@/lib/customers/service";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/schema";
import { connectedProcessor, processorCustomer, processorNamed } from "@/lib/payments/processors/registry";
import { patchRecord } from "@/lib/schemas";
import { sandboxProcessor } from "@/lib/payments/processors/sandbox";
import { isSandboxPaymentMethod, LIVE_REFUSAL_MESSAGE } from "@/lib/payments/processors/sandbox/methods";
import { ProcessorRefusedError, ProcessorUnavailableError, type PaymentProcessor, type SavedPaymentMethod } from "@/lib/payments/processors/types";
import { serializePaymentMethod, type PaymentMethodRow } from "./serialize";

/* A customer's saved payment methods (docs/payments.md, "Payment methods"): attach, list, detach. */

const FIELD = "processor_payment_method";

/** The processor's refusals as the API's: a 422 naming the field, or a 503 when it could not be reached (nothing stored). */
async function atProcessor<T>(call: () => Promise<T>, field = FIELD, nothing = "Nothing was attached"): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusedError) throw validationFailed([{ field, message: error.message }]);
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} ${nothing}: try again.`, { retryable: true });
    throw error;
  }
}

/**
 * Who attaches `method`: the sandbox processor for a sandbox method on a sandbox account, else the
 * connected processor, which must accept it. No processor connected: a live account is told to
 * connect one (409), a sandbox account that the method is unknown (422).
 */
async function processorToAttach(db: Executor, ctx: ServiceContext, method: string): Promise<PaymentProcessor> {
  if (isSandboxPaymentMethod(method)) {
    if (ctx.livemode) throw validationFailed([{ field: FIELD, message: `${LIVE_REFUSAL_MESSAGE}.` }]);
    return sandboxProcessor;
  }
  const connected = await connectedProcessor(db, ctx.accountId);
  if (!connected) {
    if (ctx.livemode) {
      throw new ServiceError("conflict", `No payment processor is connected to this account: connect one (PUT /payment-processor) to attach '${method}'.`);
    }
    throw validationFailed([
      { field: FIELD, message: `Unknown payment method '${method}'; use one of ${SANDBOX_PAYMENT_METHODS.join(", ")}, or connect a payment processor.` },
    ]);
  }
  const refusal = connected.checkPaymentMethod(method, "automatic");
  if (refusal !== null) throw validationFailed([{ field: FIELD, message: refusal }]);
  return connected;
}

const attachedOf = (accountId: string, customerId: string) =>
  and(eq(paymentMethods.accountId, accountId), eq(paymentMethods.customerId, customerId), isNull(paymentMethods.detachedAt));

export async function listPaymentMethods({ ctx, input }: Verb<{ customerId: string }>): Promise<PaymentMethodRow[]> {
  await getCustomer({ ctx, input: { id: input.customerId } });
  const db = await getDb();
  return db
    .select()
    .from(paymentMethods)
    .where(attachedOf(ctx.accountId, input.customerId))
    .orderBy(desc(paymentMethods.created), desc(paymentMethods.id));
}

/**
 * Saves the method at its processor (for the customer's counterpart there), then stores our `pm_…`
 * object and `payment_method.attached` in one transaction. A method already attached to the
 * customer answers its object and emits nothing.
 */
export async function attachPaymentMethod({ ctx, input }: Verb<{ customerId: string; processorPaymentMethod: string }>): Promise<PaymentMethodRow> {
  const customer = await getCustomer({ ctx, input: { id: input.customerId } });
  const db = await getDb();
  const processor = await processorToAttach(db, ctx, input.processorPaymentMethod);
  const saved = await atProcessor(async () => {
    const reference = await processorCustomer(db, processor, ctx.accountId, customer);
    return processor.savePaymentMethod({ processorCustomer: reference, paymentMethod: input.processorPaymentMethod });
  });
  return withChangeTransaction(async (tx) => {
    // The customer may have been deleted meanwhile: its row, locked, decides.
    const [live] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, customer.id), isNull(customers.deletedAt)))
      .for("update");
    if (!live) throw notFound("customer", customer.id);
    return recordSavedMethod(tx, ctx, customer.id, processor.name, saved);
  });
}

/**
 * Our `pm_…` for a method saved at its processor, with `payment_method.attached`, in the caller's
 * transaction; one already attached to the customer is answered as it is and emits nothing. Used
 * by the merchant's attach and by a SetupIntent or checkout that saved the method (./setup.ts).
 */
export async function recordSavedMethod(tx: ChangeTransaction, ctx: ServiceContext, customerId: string, processor: string, saved: SavedPaymentMethod): Promise<PaymentMethodRow> {
  const [inserted] = await tx
    .insert(paymentMethods)
    .values({
      id: newId("paymentMethod"),
      accountId: ctx.accountId,
      customerId,
      processor,
      processorReference: saved.reference,
      brand: saved.brand,
      last4: saved.last4,
      expMonth: saved.expMonth,
      expYear: saved.expYear,
      created: ctx.now(),
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted) {
    const [existing] = await tx
      .select()
      .from(paymentMethods)
      .where(and(attachedOf(ctx.accountId, customerId), eq(paymentMethods.processor, processor), eq(paymentMethods.processorReference, saved.reference)));
    return existing!;
  }
  await emitEvent(tx, ctx, { type: "payment_method.attached", aggregateId: inserted.id, data: serializePaymentMethod(inserted, ctx.livemode), previousData: null });
  // The first method a customer has becomes their default (docs/payments.md, "The customer's default payment method").
  await setDefaultPaymentMethod(tx, ctx, customerId, inserted.id, { onlyIfNone: true });
  return inserted;
}

/** Detaches an attached method (`detached_at`) with `payment_method.detached`; a detached or unknown one is a 404. */
export async function detachPaymentMethod({ ctx, input }: Verb<{ customerId: string; id: string }>): Promise<PaymentMethodRow> {
  await getCustomer({ ctx, input: { id: input.customerId } });
  return withChangeTransaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(paymentMethods)
      .where(and(attachedOf(ctx.accountId, input.customerId), eq(paymentMethods.id, input.id)))
      .for("update");
    if (!before) throw notFound("payment method of customer", input.id);
    const [after] = await tx.update(paymentMethods).set({ detachedAt: ctx.now() }).where(eq(paymentMethods.id, before.id)).returning();
    await emitEvent(tx, ctx, {
      type: "payment_method.detached",
      aggregateId: before.id,
      data: serializePaymentMethod(after!, ctx.livemode),
      previousData: serializePaymentMethod(before, ctx.livemode),
    });
    // As Stripe's: detaching the customer's default clears it (customer.updated); nothing falls back to another method.
    await setDefaultPaymentMethod(tx, ctx, input.customerId, null, { onlyIf: before.id });
    return after!;
  });
}

export type PaymentMethodChanges = { metadata?: Record<string, string | null>; expMonth?: number; expYear?: number };

/**
 * The merchant's update (Stripe's PaymentMethod update): `metadata` is ours; a new expiry is sent
 * to the processor first (nothing of ours locked meanwhile), and what it answers is stored. One
 * `payment_method.updated` when anything changed; none otherwise.
 */
export async function updatePaymentMethod({ ctx, input }: Verb<{ customerId: string; id: string; changes: PaymentMethodChanges }>): Promise<PaymentMethodRow> {
  await getCustomer({ ctx, input: { id: input.customerId } });
  const db = await getDb();
  const [current] = await db.select().from(paymentMethods).where(and(attachedOf(ctx.accountId, input.customerId), eq(paymentMethods.id, input.id)));
  if (!current) throw notFound("payment method of customer", input.id);
  const { expMonth, expYear } = input.changes;
  let card: SavedPaymentMethod | null = null;
  if (expMonth !== undefined || expYear !== undefined) {
    const processor = await processorNamed(db, ctx.accountId, current.processor);
    if (!processor) throw new ServiceError("conflict", `Payment method '${current.id}' is held by ${current.processor}, which is no longer connected to this account.`);
    card = await atProcessor(
      () => processor.updatePaymentMethod({ reference: current.processorReference, expMonth: expMonth ?? current.expMonth ?? undefined, expYear: expYear ?? current.expYear ?? undefined }),
      "card",
      "Nothing was changed",
    );
  }
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(paymentMethods).where(and(attachedOf(ctx.accountId, input.customerId), eq(paymentMethods.id, input.id))).for("update");
    if (!before) throw notFound("payment method of customer", input.id);
    return changeMethod(tx, ctx, before, { ...(card ? cardOf(card) : {}), metadata: patchRecord(before.metadata, input.changes.metadata) });
  });
}

const cardOf = (saved: SavedPaymentMethod) => ({ brand: saved.brand, last4: saved.last4, expMonth: saved.expMonth, expYear: saved.expYear });

/** Writes the changes of a locked method with `payment_method.updated`; the same details change nothing and emit nothing. */
async function changeMethod(tx: ChangeTransaction, ctx: ServiceContext, before: PaymentMethodRow, changes: Partial<Pick<PaymentMethodRow, "brand" | "last4" | "expMonth" | "expYear" | "metadata">>): Promise<PaymentMethodRow> {
  const next = { ...before, ...changes };
  const same =
    next.brand === before.brand &&
    next.last4 === before.last4 &&
    next.expMonth === before.expMonth &&
    next.expYear === before.expYear &&
    JSON.stringify(next.metadata) === JSON.stringify(before.metadata);
  if (same) return before;
  const [after] = await tx
    .update(paymentMethods)
    .set({ brand: next.brand, last4: next.last4, expMonth: next.expMonth, expYear: next.expYear, metadata: next.metadata })
    .where(eq(paymentMethods.id, before.id))
    .returning();
  await emitEvent(tx, ctx, {
    type: "payment_method.updated",
    aggregateId: before.id,
    data: serializePaymentMethod(after!, ctx.livemode),
    previousData: serializePaymentMethod(before, ctx.livemode),
  });
  return after!;
}

/**
 * A processor's word that a method's card changed (Stripe's `payment_method.updated` and
 * `payment_method.automatically_updated`: the card updater's new expiry or last 4), re-read at
 * the processor by the webhook's job: each of our attached methods with that reference takes the
 * details it has now, once (the same details again change nothing). Answers whether any changed.
 */
export async function applyPaymentMethodState(ctx: ServiceContext, processor: string, saved: SavedPaymentMethod): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const rows = await tx
      .select()
      .from(paymentMethods)
      .where(and(eq(paymentMethods.accountId, ctx.accountId), eq(paymentMethods.processor, processor), eq(paymentMethods.processorReference, saved.reference), isNull(paymentMethods.detachedAt)))
      .orderBy(paymentMethods.id)
      .for("update");
    let changed = false;
    for (const row of rows) {
      const after = await changeMethod(tx, ctx, row, cardOf(saved));
      changed ||= after !== row;
    }
    return changed;
  });
}
