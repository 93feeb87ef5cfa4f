import { publicBaseUrl } from "@/lib/config";
import { operationPath } from "@/lib/operation-paths";
import type { StoredConnection } from "@/lib/payments/processors/registry";
import type { PaymentProcessorObject } from "./schema";

/** Where `processor` sends the account's events (POST /api/processors/{processor}/{account_id}). */
export function processorWebhookUrl(processor: string, accountId: string): string {
  return `${publicBaseUrl()}${operationPath("receiveProcessorEvent", { processor, account: accountId })}`;
}

export function serializePaymentProcessor(accountId: string, connection: StoredConnection): PaymentProcessorObject {
  return {
    object: "payment_processor",
    processor: connection.processor,
    processor_account: connection.processorAccount,
    secret_key_last4: connection.secretKeyLast4,
    publishable_key: connection.publishableKey,
    webhook_endpoint_id: connection.webhookEndpointId,
    webhook_url: processorWebhookUrl(connection.processor, accountId),
    livemode: connection.livemode,
    created: connection.created.toISOString(),
    updated: connection.updated.toISOString(),
  };
}
