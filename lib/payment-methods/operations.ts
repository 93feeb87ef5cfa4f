import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { AttachPaymentMethodInput, PaymentMethod, PaymentMethodList, UpdatePaymentMethodInput } from "./schema";

const tag = "Payment methods";

export const listPaymentMethodsOperation = defineOperation({
  operationId: "listPaymentMethods",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}/payment-methods",
  unscopedPath: "/customers/{customer_id}/payment-methods",
  summary: "List a customer's payment methods",
  description: "Every payment method attached to the customer, newest first, in one page; detached ones are not listed.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  response: { status: 200, description: "The customer's attached payment methods.", schema: PaymentMethodList },
  errors: [404],
});

export const attachPaymentMethodOperation = defineOperation({
  operationId: "attachPaymentMethod",
  method: "POST",
  path: "/{account_id}/customers/{customer_id}/payment-methods",
  unscopedPath: "/customers/{customer_id}/payment-methods",
  summary: "Attach a payment method",
  description:
    "Saves `processor_payment_method` for the customer and answers our `pm_…` object. A sandbox method (sandbox accounts) is attached by the sandbox processor, a fixed Visa card per method; any other method is attached at the connected processor (Stripe's attach to the customer's Stripe customer). With no processor connected, a method that is not a sandbox one is a 409 on a live account and a 422 on a sandbox one. Attaching a method already attached to the customer answers that object and emits nothing. Emits `payment_method.attached`.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: AttachPaymentMethodInput,
  response: { status: 201, description: "The attached payment method.", schema: PaymentMethod },
  errors: [404, 409, 415, 422, 503],
});

export const detachPaymentMethodOperation = defineOperation({
  operationId: "detachPaymentMethod",
  method: "DELETE",
  path: "/{account_id}/customers/{customer_id}/payment-methods/{payment_method_id}",
  unscopedPath: "/customers/{customer_id}/payment-methods/{payment_method_id}",
  summary: "Detach a payment method",
  description:
    "Detaches the method from the customer (`detached_at`): it is no longer listed. A method already detached is a 404. Emits `payment_method.detached`; when it was the customer's `default_payment_method`, that is cleared (`customer.updated`).",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  response: { status: 200, description: "The detached payment method.", schema: PaymentMethod },
  errors: [404],
});

export const updatePaymentMethodOperation = defineOperation({
  operationId: "updatePaymentMethod",
  method: "POST",
  path: "/{account_id}/customers/{customer_id}/payment-methods/{payment_method_id}",
  unscopedPath: "/customers/{customer_id}/payment-methods/{payment_method_id}",
  summary: "Update a payment method",
  description:
    "Stripe's PaymentMethod update, for a card: `metadata` (ours, never sent to the processor) and `card.exp_month` / `card.exp_year`, changed at the processor first (Stripe's update; a refusal is a 422 on `card`, an unreachable processor a 503 that changed nothing), its answer stored. Emits `payment_method.updated` when anything changed; nothing otherwise. A detached method is a 404.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: UpdatePaymentMethodInput,
  response: { status: 200, description: "The payment method.", schema: PaymentMethod },
  errors: [404, 409, 415, 422, 503],
});

export const paymentMethodOperations = [listPaymentMethodsOperation, attachPaymentMethodOperation, detachPaymentMethodOperation, updatePaymentMethodOperation];
