import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { PaymentProcessorConnectInput } from "./connect-input";
import { PaymentProcessor, ProcessorEventReceipt } from "./schema";

const tag = "Payment processor";

export const getPaymentProcessorOperation = defineOperation({
  operationId: "getPaymentProcessor",
  method: "GET",
  path: "/{account_id}/payment-processor",
  unscopedPath: "/payment-processor",
  summary: "Retrieve the payment processor connection",
  description: "The connected processor, its account there and the last 4 characters of the secret key (never the key). 404 when none is connected.",
  tag,
  access: "secret",
  permission: needs("settings", "read"),
  role: "admin",
  response: { status: 200, description: "The connection.", schema: PaymentProcessor },
  errors: [404],
});

export const connectPaymentProcessorOperation = defineOperation({
  operationId: "connectPaymentProcessor",
  method: "PUT",
  path: "/{account_id}/payment-processor",
  unscopedPath: "/payment-processor",
  summary: "Connect a payment processor",
  description:
    "Checks the keys at the processor (test keys for a sandbox account, live keys for a live one; 422 otherwise, or when the processor refuses them), creates the processor's webhook endpoint for the account, and stores the keys and the endpoint's signing secret encrypted. Replaces an earlier connection. Emits `payment_processor.connected`. 503 when the processor cannot be reached.",
  tag,
  access: "secret",
  permission: needs("settings", "write"),
  role: "admin",
  body: PaymentProcessorConnectInput,
  response: { status: 200, description: "The connection.", schema: PaymentProcessor },
  errors: [415, 422, 503],
});

export const disconnectPaymentProcessorOperation = defineOperation({
  operationId: "disconnectPaymentProcessor",
  method: "DELETE",
  path: "/{account_id}/payment-processor",
  unscopedPath: "/payment-processor",
  summary: "Disconnect the payment processor",
  description: "Deletes the webhook endpoint at the processor and the stored keys. Emits `payment_processor.disconnected`. 404 when none is connected.",
  tag,
  access: "secret",
  permission: needs("settings", "write"),
  role: "admin",
  response: { status: 200, description: "The connection as it was.", schema: PaymentProcessor },
  errors: [404, 503],
});


export const receiveProcessorEventOperation = defineOperation({
  operationId: "receiveProcessorEvent",
  method: "POST",
  path: "/processors/{processor}/{account}",
  summary: "Receive a payment processor's webhook",
  description:
    "Where the processor connected to the account sends its events (the endpoint connecting created). The raw body is verified with the stored signing secret (Stripe: `Stripe-Signature`, 5 minutes' tolerance; 400 otherwise), stored once per processor event id (a redelivery answers `duplicate: true` and changes nothing), answered, and applied afterwards: the object is re-read at the processor.",
  tag,
  access: "public",
  response: { status: 200, description: "The event was stored (or was already).", schema: ProcessorEventReceipt },
  errors: [404],
});

export const paymentProcessorOperations = [getPaymentProcessorOperation, connectPaymentProcessorOperation, disconnectPaymentProcessorOperation, receiveProcessorEventOperation];
