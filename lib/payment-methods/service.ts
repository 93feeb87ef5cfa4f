import { and, desc, eq, isNull } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { customers, paymentMethods } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { getCustomer } from "@/lib/customers/service";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/schema";
import { connectedProcessor, processorCustomer } from "@/lib/payments/processors/registry";
import { sandboxProcessor } from "@/lib/payments/processors/sandbox";
import { isSandboxPaymentMethod, LIVE_REFUSAL_MESSAGE } from "@/lib/payments/processors/sandbox/methods";
import { ProcessorRefusedError, ProcessorUnavailableError, type PaymentProcessor, type SavedPaymentMethod } from "@/lib/payments/processors/types";
import { serializePaymentMethod, type PaymentMethodRow } from "./serialize";

/* A customer's saved payment methods (docs/payments.md, "Payment methods"): attach, list, detach. */

const FIELD = "processor_payment_method";

/** The processor's refusals as the API's: a 422 naming the field, or a 503 when it could not be reached (nothing stored). */
async function atProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusedError) throw validationFailed([{ field: FIELD, message: error.message }]);
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} Nothing was attached: try again.`, { retryable: true });
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
    return after!;
  });
}
