import { needs } from "@/lib/permissions";
import type { PaymentIntentObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import {
  Payment,
  PaymentIntent,
  PaymentIntentCancelInput,
  PaymentIntentCaptureInput,
  PaymentIntentConfirmInput,
  PaymentIntentCreateInput,
  PaymentIntentList,
  PaymentIntentListQuery,
  PaymentList,
  PaymentListQuery,
} from "./schema";

const tag = "Payment intents";
const sandboxNote =
  "Sandbox payment methods, on sandbox accounts, decide outcomes in simulation (live accounts answer 422 on them); other methods (`pm_…`) are charged by the account's connected processor (docs/payments.md), 503 (retryable, nothing changed) when it cannot be reached.";

export const listPaymentIntentsOperation = defineOperation({
  operationId: "listPaymentIntents",
  method: "GET",
  path: "/{account_id}/payment-intents",
  unscopedPath: "/payment-intents",
  summary: "List payment intents",
  description: "Newest first; filters `customer`, `status`.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  query: PaymentIntentListQuery,
  response: { status: 200, description: "A page of payment intents.", schema: PaymentIntentList },
});

export const createPaymentIntentOperation = defineOperation({
  operationId: "createPaymentIntent",
  method: "POST",
  path: "/{account_id}/payment-intents",
  unscopedPath: "/payment-intents",
  summary: "Create a payment intent",
  description: `Emits \`payment_intent.created\`; with \`confirm: true\` also the confirmation's events. ${sandboxNote}`,
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: PaymentIntentCreateInput,
  response: { status: 201, description: "The created payment intent.", schema: PaymentIntent },
  errors: [415, 422, 503],
});

export const getPaymentIntentOperation = defineOperation({
  operationId: "getPaymentIntent",
  method: "GET",
  path: "/{account_id}/payment-intents/{payment_intent_id}",
  unscopedPath: "/payment-intents/{payment_intent_id}",
  summary: "Retrieve a payment intent",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  response: { status: 200, description: "The payment intent.", schema: PaymentIntent },
  errors: [404],
});

export const confirmPaymentIntentOperation = defineOperation({
  operationId: "confirmPaymentIntent",
  method: "POST",
  path: "/{account_id}/payment-intents/{payment_intent_id}/confirm",
  unscopedPath: "/payment-intents/{payment_intent_id}/confirm",
  summary: "Confirm a payment intent",
  description: `The payment method decides the outcome: \`payment_intent.processing\` then succeeded, payment_failed, partially_funded or amount_capturable_updated (manual capture); or requires_action, after which confirming again completes the action. Allowed from requires_payment_method, requires_confirmation, requires_action and partially_funded (409 otherwise). ${sandboxNote}`,
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: PaymentIntentConfirmInput,
  response: { status: 200, description: "The payment intent after the confirmation.", schema: PaymentIntent },
  errors: [404, 409, 415, 422, 503],
});

export const capturePaymentIntentOperation = defineOperation({
  operationId: "capturePaymentIntent",
  method: "POST",
  path: "/{account_id}/payment-intents/{payment_intent_id}/capture",
  unscopedPath: "/payment-intents/{payment_intent_id}/capture",
  summary: "Capture a payment intent",
  description:
    "Only in requires_capture (409 otherwise). Captures `amount_to_capture` (default all of `amount_capturable_atom`; more is a 422): `payment.succeeded` then `payment_intent.succeeded`.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: PaymentIntentCaptureInput,
  response: { status: 200, description: "The succeeded payment intent.", schema: PaymentIntent },
  errors: [404, 409, 415, 422],
});

export const cancelPaymentIntentOperation = defineOperation({
  operationId: "cancelPaymentIntent",
  method: "POST",
  path: "/{account_id}/payment-intents/{payment_intent_id}/cancel",
  unscopedPath: "/payment-intents/{payment_intent_id}/cancel",
  summary: "Cancel a payment intent",
  description: "From any state but succeeded and canceled (409 then): `payment_intent.canceled`.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: PaymentIntentCancelInput,
  response: { status: 200, description: "The canceled payment intent.", schema: PaymentIntent },
  errors: [404, 409, 415],
});

export const listPaymentsOperation = defineOperation({
  operationId: "listPayments",
  method: "GET",
  path: "/{account_id}/payments",
  unscopedPath: "/payments",
  summary: "List payments",
  description: "Payments are made by confirmations and captures, never directly. Newest first; filter `payment_intent`.",
  tag: "Payments",
  access: "secret",
  permission: needs("payments_refunds", "read"),
  query: PaymentListQuery,
  response: { status: 200, description: "A page of payments.", schema: PaymentList },
});

export const getPaymentOperation = defineOperation({
  operationId: "getPayment",
  method: "GET",
  path: "/{account_id}/payments/{payment_id}",
  unscopedPath: "/payments/{payment_id}",
  summary: "Retrieve a payment",
  tag: "Payments",
  access: "secret",
  permission: needs("payments_refunds", "read"),
  response: { status: 200, description: "The payment.", schema: Payment },
  errors: [404],
});

/** The payment intents export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const PAYMENT_INTENT_EXPORT: ExportColumns<PaymentIntentObject> = {
  columns: fieldColumns<PaymentIntentObject>([
    "id", "customer", "invoice", "status", "currency", "amount_atom", "amount_capturable_atom", "amount_received_atom",
    "capture_method", "payment_method", "last_payment_error", "canceled_at", "metadata", "livemode", "created", "updated",
  ]),
};

export const exportPaymentIntentsOperation = defineExportOperation(listPaymentIntentsOperation, { operationId: "exportPaymentIntents", plural: "payment intents", columns: PAYMENT_INTENT_EXPORT });

export const paymentOperations = [
  listPaymentIntentsOperation,
  exportPaymentIntentsOperation,
  createPaymentIntentOperation,
  getPaymentIntentOperation,
  confirmPaymentIntentOperation,
  capturePaymentIntentOperation,
  cancelPaymentIntentOperation,
  listPaymentsOperation,
  getPaymentOperation,
];
