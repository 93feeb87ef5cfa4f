import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { paymentMethods, paymentProcessors, processorCustomers } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError, validationFailed } from "@/lib/errors";
import { decryptSecret } from "@/lib/secrets";
import { sandboxProcessor } from "./sandbox";
import { checkSandboxPaymentMethod, isSandboxPaymentMethod, LIVE_REFUSAL_MESSAGE } from "./sandbox/methods";
import { PROCESSORS } from "./list";
import type { CaptureMethod, PaymentProcessor, ProcessorConnection, ProcessorDefinition } from "./types";

/*
 * Which processor charges a payment method, and the account's connected one opened with its
 * credentials. The processors an account can connect are listed in ./list.ts.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function processorDefinition(name: string): ProcessorDefinition<any> | undefined {
  return PROCESSORS.find((definition) => definition.name === name);
}

export type StoredConnection = ProcessorConnection & { processor: string; secretKeyLast4: string; created: Date; updated: Date };

/** The account's connected processor, secrets decrypted, or null. */
export async function loadConnection(db: Executor, accountId: string): Promise<StoredConnection | null> {
  const [row] = await db.select().from(paymentProcessors).where(eq(paymentProcessors.accountId, accountId));
  if (!row) return null;
  return {
    processor: row.processor,
    processorAccount: row.processorAccount,
    livemode: row.livemode,
    secretKey: decryptSecret(row.secretKeyEncrypted),
    secretKeyLast4: row.secretKeyLast4,
    publishableKey: row.publishableKey,
    webhookEndpointId: row.webhookEndpointId,
    webhookSecret: decryptSecret(row.webhookSecretEncrypted),
    created: row.created,
    updated: row.updated,
  };
}

/** The processor connected to the account, opened with its credentials; null when none is. */
export async function connectedProcessor(db: Executor, accountId: string): Promise<PaymentProcessor | null> {
  const connection = await loadConnection(db, accountId);
  if (!connection) return null;
  const definition = processorDefinition(connection.processor);
  return definition ? definition.open(connection) : null;
}

/** Whether the account can charge at all: sandbox accounts always can (the sandbox processor), live ones through a connected processor. */
export async function canCharge(db: Executor, accountId: string, livemode: boolean): Promise<boolean> {
  if (!livemode) return true;
  return (await connectedProcessor(db, accountId)) !== null;
}

/** What charges a payment method: the processor, and the method as that processor knows it. */
export type ChargeMethod = { processor: PaymentProcessor; processorMethod: string };

/**
 * The processor that charges `method` on this account, or a 422 naming `field`:
 * - a payment method saved for a customer (our `pm_…`, lib/payment-methods) is charged by the
 *   processor that holds it with its processor's id; it must belong to `customerId` (when the
 *   charge has a customer) and still be attached, and its processor still connected (409 if not);
 * - sandbox methods on sandbox accounts always go to the sandbox processor (so a sandbox account
 *   that connected Stripe test keys keeps them);
 * - any other method to the connected processor, which must accept it.
 */
export async function resolvePaymentMethod(
  db: Executor,
  ctx: ServiceContext,
  method: string,
  captureMethod: CaptureMethod,
  options: { customerId?: string | null; field?: string } = {},
): Promise<ChargeMethod> {
  const field = options.field ?? "payment_method";
  const [saved] = await db
    .select()
    .from(paymentMethods)
    .where(and(eq(paymentMethods.accountId, ctx.accountId), eq(paymentMethods.id, method)));
  if (saved) {
    if (saved.detachedAt !== null) throw validationFailed([{ field, message: `Payment method '${method}' was detached from its customer.` }]);
    if (options.customerId !== undefined && options.customerId !== saved.customerId) {
      const message = options.customerId === null
        ? `Payment method '${method}' is saved for customer '${saved.customerId}': the charge must name that customer.`
        : `Payment method '${method}' is saved for another customer ('${saved.customerId}').`;
      throw validationFailed([{ field, message }]);
    }
    const processor = await processorNamed(db, ctx.accountId, saved.processor);
    if (!processor) {
      throw new ServiceError("conflict", `Payment method '${method}' is held by ${saved.processor}, which is no longer connected to this account: connect it again (PUT /payment-processor).`);
    }
    const refusal = processor.checkPaymentMethod(saved.processorReference, captureMethod);
    if (refusal !== null) throw validationFailed([{ field, message: refusal }]);
    return { processor, processorMethod: saved.processorReference };
  }
  const sandbox = isSandboxPaymentMethod(method);
  if (sandbox && ctx.livemode) throw validationFailed([{ field, message: `${LIVE_REFUSAL_MESSAGE}.` }]);
  const processor = sandbox ? sandboxProcessor : await connectedProcessor(db, ctx.accountId);
  if (!processor) {
    // No processor: today's refusals, word for word (live accounts; unknown methods on sandbox ones).
    checkSandboxPaymentMethod(ctx.livemode, method, field);
    throw new Error(`unreachable: '${method}' is not a sandbox method`);
  }
  const refusal = processor.checkPaymentMethod(method, captureMethod);
  if (refusal !== null) throw validationFailed([{ field, message: refusal }]);
  return { processor, processorMethod: method };
}

/**
 * A subscription's `default_payment_method` (or a payment method given to pay its change), checked
 * before anything is written: a sandbox method on a sandbox account, or a method saved for the
 * subscription's customer (any account, charged off-session by its processor). A processor's own
 * method id is refused here: an off-session charge needs it saved for the customer first.
 */
export async function checkSubscriptionPaymentMethod(db: Executor, ctx: ServiceContext, method: string, customerId: string, field: string): Promise<string> {
  if (isSandboxPaymentMethod(method)) return checkSandboxPaymentMethod(ctx.livemode, method, field);
  const [saved] = await db
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(and(eq(paymentMethods.accountId, ctx.accountId), eq(paymentMethods.id, method)));
  if (!saved) {
    if (!ctx.livemode) checkSandboxPaymentMethod(ctx.livemode, method, field);
    throw validationFailed([
      { field, message: `Unknown payment method '${method}': a live account charges a payment method saved for the customer (POST /customers/${customerId}/payment-methods answers its pm_ id).` },
    ]);
  }
  await resolvePaymentMethod(db, ctx, method, "automatic", { customerId, field });
  return method;
}

/** The processor that made an intent's earlier charge (capture, cancel and retrieve go back to it). */
export async function processorNamed(db: Executor, accountId: string, name: string | null): Promise<PaymentProcessor | null> {
  if (name === null || name === sandboxProcessor.name) return sandboxProcessor;
  const connected = await connectedProcessor(db, accountId);
  return connected?.name === name ? connected : null;
}

/** The customer's counterpart at the processor, created there on first use and remembered. */
export async function processorCustomer(db: Executor, processor: PaymentProcessor, accountId: string, customer: { id: string; email: string | null; name: string | null }): Promise<string> {
  const [known] = await db
    .select({ reference: processorCustomers.reference })
    .from(processorCustomers)
    .where(and(eq(processorCustomers.customerId, customer.id), eq(processorCustomers.processor, processor.name)));
  if (known) return known.reference;
  // Idempotent at the processor (keyed by our customer id), so a rolled-back first use makes no second customer.
  const { reference } = await processor.createCustomer({ customerId: customer.id, email: customer.email, name: customer.name });
  await db.insert(processorCustomers).values({ accountId, customerId: customer.id, processor: processor.name, reference }).onConflictDoNothing();
  return reference;
}
