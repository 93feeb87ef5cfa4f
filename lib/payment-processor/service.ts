import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { paymentProcessors } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { log, safeError } from "@/lib/log";
import { loadConnection, processorDefinition, type StoredConnection } from "@/lib/payments/processors/registry";
import { ProcessorRefusedError, ProcessorUnavailableError, type ProcessorConnection } from "@/lib/payments/processors/types";
import { encryptSecret } from "@/lib/secrets";
import type { PaymentProcessorConnectInput } from "./connect-input";
import { processorWebhookUrl, serializePaymentProcessor } from "./serialize";

/* Connecting an account's payment processor: check the keys there, create its webhook endpoint, store the secrets encrypted. */

/** The processor's refusals as the API's: a 422 naming the field, or a 503 when it could not be reached. */
async function atProcessor<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorRefusedError) throw validationFailed([{ field: error.field, message: error.message }]);
    if (error instanceof ProcessorUnavailableError) throw new ServiceError("unavailable", `${error.message} Try again later.`, { retryable: true });
    throw error;
  }
}

export async function getPaymentProcessor({ ctx }: Verb<unknown>): Promise<StoredConnection> {
  const connection = await loadConnection(await getDb(), ctx.accountId);
  if (!connection) throw notFound("payment processor of account", ctx.accountId);
  return connection;
}

/**
 * Connects (or replaces) the account's processor: the keys are checked at the processor (test keys
 * for a sandbox account, live keys for a live one) and its webhook endpoint is created there,
 * before anything is stored; then `payment_processor.connected`. A replaced connection's endpoint
 * is deleted afterwards.
 */
export async function connectPaymentProcessor({ ctx, input }: Verb<PaymentProcessorConnectInput>): Promise<StoredConnection> {
  const { processor, ...credentials } = input as { processor: string } & Record<string, unknown>;
  const definition = processorDefinition(processor);
  if (!definition) throw validationFailed([{ field: "processor", message: `Unknown processor '${processor}'.` }]);
  const made: ProcessorConnection = await atProcessor(() =>
    definition.connect({ credentials, livemode: ctx.livemode, webhookUrl: processorWebhookUrl(processor, ctx.accountId) }),
  );
  let replaced: StoredConnection | null = null;
  try {
    const stored = await withChangeTransaction(async (tx) => {
      await tx.select({ id: paymentProcessors.accountId }).from(paymentProcessors).where(eq(paymentProcessors.accountId, ctx.accountId)).for("update");
      replaced = await loadConnection(tx, ctx.accountId);
      const now = ctx.now();
      const values = {
        processor,
        processorAccount: made.processorAccount,
        livemode: made.livemode,
        secretKeyEncrypted: encryptSecret(made.secretKey),
        secretKeyLast4: made.secretKey.slice(-4),
        publishableKey: made.publishableKey,
        webhookEndpointId: made.webhookEndpointId,
        webhookSecretEncrypted: encryptSecret(made.webhookSecret),
        updated: now,
      };
      await tx
        .insert(paymentProcessors)
        .values({ accountId: ctx.accountId, ...values, created: now })
        .onConflictDoUpdate({ target: paymentProcessors.accountId, set: values });
      const after = (await loadConnection(tx, ctx.accountId))!;
      await emitEvent(tx, ctx, {
        type: "payment_processor.connected",
        aggregateId: ctx.accountId,
        data: serializePaymentProcessor(ctx.accountId, after),
        previousData: replaced ? serializePaymentProcessor(ctx.accountId, replaced) : null,
      });
      return after;
    });
    if (replaced) await deleteEndpoint(replaced);
    return stored;
  } catch (error) {
    // Nothing was stored: the endpoint just made would send events nobody can verify.
    await deleteEndpoint({ ...made, processor });
    throw error;
  }
}

/** Best effort: an endpoint left behind only sends events that fail verification. */
async function deleteEndpoint(connection: ProcessorConnection & { processor: string }): Promise<void> {
  try {
    await processorDefinition(connection.processor)?.disconnect(connection);
  } catch (error) {
    log().warn({ processor: connection.processor, endpoint: connection.webhookEndpointId, err: safeError(error) }, "payment processor webhook endpoint not deleted");
  }
}

/** Disconnects the account's processor: its webhook endpoint is deleted there, then `payment_processor.disconnected`. */
export async function disconnectPaymentProcessor({ ctx }: Verb<unknown>): Promise<StoredConnection> {
  const connection = await getPaymentProcessor({ ctx, input: {} });
  await atProcessor(async () => processorDefinition(connection.processor)?.disconnect(connection));
  return withChangeTransaction(async (tx) => {
    const [deleted] = await tx.delete(paymentProcessors).where(eq(paymentProcessors.accountId, ctx.accountId)).returning({ id: paymentProcessors.accountId });
    if (!deleted) throw notFound("payment processor of account", ctx.accountId);
    await emitEvent(tx, ctx, {
      type: "payment_processor.disconnected",
      aggregateId: ctx.accountId,
      data: serializePaymentProcessor(ctx.accountId, connection),
      previousData: null,
    });
    return connection;
  });
}
