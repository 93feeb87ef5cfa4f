import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import {
  CheckoutCompletion,
  CheckoutSession,
  CheckoutSessionCompleteInput,
  CheckoutSessionCreateInput,
  CheckoutSessionExpireInput,
  CheckoutSessionList,
  CheckoutSessionListQuery,
  CheckoutSessionUpdateInput,
  DeletedCheckoutSession,
} from "./schema";

const tag = "Checkout sessions";

export const listCheckoutSessionsOperation = defineOperation({
  operationId: "listCheckoutSessions",
  method: "GET",
  path: "/{account_id}/checkout/sessions",
  unscopedPath: "/checkout/sessions",
  summary: "List checkout sessions",
  description: "Newest first; filters `status` and `customer`. Deleted sessions are not listed.",
  tag,
  access: "secret",
  permission: needs("checkout", "read"),
  query: CheckoutSessionListQuery,
  response: { status: 200, description: "A page of checkout sessions.", schema: CheckoutSessionList },
});

export const createCheckoutSessionOperation = defineOperation({
  operationId: "createCheckoutSession",
  method: "POST",
  path: "/{account_id}/checkout/sessions",
  unscopedPath: "/checkout/sessions",
  summary: "Create a checkout session",
  description:
    "A hosted payment page (`url`) for one-time prices (`mode: payment`) or a subscription (`mode: subscription`). Secret **and publishable** tokens (a publishable token may not name a `customer`). Line items: active prices of active products, one currency; recurring prices on one interval for a subscription, one-time prices for a payment. Emits `checkout.session.created`.",
  tag,
  access: "publishable",
  permission: needs("checkout", "write"),
  body: CheckoutSessionCreateInput,
  response: { status: 201, description: "The open session.", schema: CheckoutSession },
  errors: [415, 422],
});

export const getCheckoutSessionOperation = defineOperation({
  operationId: "getCheckoutSession",
  method: "GET",
  path: "/{account_id}/checkout/sessions/{session_id}",
  unscopedPath: "/checkout/sessions/{session_id}",
  summary: "Retrieve a checkout session",
  tag,
  access: "secret",
  permission: needs("checkout", "read"),
  response: { status: 200, description: "The session.", schema: CheckoutSession },
  errors: [404],
});

export const updateCheckoutSessionOperation = defineOperation({
  operationId: "updateCheckoutSession",
  method: "POST",
  path: "/{account_id}/checkout/sessions/{session_id}",
  unscopedPath: "/checkout/sessions/{session_id}",
  summary: "Update a checkout session",
  description: "`metadata`, `customer_email`, while open (409 otherwise). Emits `checkout.session.updated` (nothing when nothing changes).",
  tag,
  access: "secret",
  permission: needs("checkout", "write"),
  body: CheckoutSessionUpdateInput,
  response: { status: 200, description: "The session.", schema: CheckoutSession },
  errors: [404, 409, 415, 422],
});

export const deleteCheckoutSessionOperation = defineOperation({
  operationId: "deleteCheckoutSession",
  method: "DELETE",
  path: "/{account_id}/checkout/sessions/{session_id}",
  unscopedPath: "/checkout/sessions/{session_id}",
  summary: "Delete a checkout session",
  description: "An open session only (409 otherwise): it is gone from the API and its page (404) afterwards. Emits `checkout.session.deleted`.",
  tag,
  access: "secret",
  permission: needs("checkout", "write"),
  response: { status: 200, description: "The deleted session's id.", schema: DeletedCheckoutSession },
  errors: [404, 409],
});

export const expireCheckoutSessionOperation = defineOperation({
  operationId: "expireCheckoutSession",
  method: "POST",
  path: "/{account_id}/checkout/sessions/{session_id}/expire",
  unscopedPath: "/checkout/sessions/{session_id}/expire",
  summary: "Expire a checkout session",
  description: "Open → expired now (`checkout.session.expired`); the page can no longer be paid. 409 unless open.",
  tag,
  access: "secret",
  permission: needs("checkout", "write"),
  body: CheckoutSessionExpireInput,
  response: { status: 200, description: "The expired session.", schema: CheckoutSession },
  errors: [404, 409, 415],
});

export const completeCheckoutSessionOperation = defineOperation({
  operationId: "completeCheckoutSession",
  method: "POST",
  path: "/checkout/sessions/{session_id}/complete",
  summary: "Pay a checkout session (the hosted page)",
  description:
    "Called by the hosted checkout page; no token: the unguessable session id is the capability, as Stripe's checkout URL is. Sandbox accounts only (422 on `payment_method` on a live account): a live account's session is paid on the hosted page through its connected processor. Finds the account's newest customer with the email or creates one, then pays the total (payment mode) or starts the subscription and pays its first invoice (subscription mode; a trial pays nothing). Paid: the session is `complete` (`checkout.session.completed`) and `redirect_url` says where to go. Declined or requiring authentication: 200 with the session still `open` and `last_payment_error`; nothing is owed. 404 unknown or deleted; 409 once complete or expired (or a price is no longer offered); events carry actor `customer`.",
  tag,
  access: "public",
  body: CheckoutSessionCompleteInput,
  response: { status: 200, description: "The attempt's outcome.", schema: CheckoutCompletion },
  errors: [404, 409, 415, 422],
});

export const checkoutOperations = [
  listCheckoutSessionsOperation,
  createCheckoutSessionOperation,
  getCheckoutSessionOperation,
  updateCheckoutSessionOperation,
  deleteCheckoutSessionOperation,
  expireCheckoutSessionOperation,
  completeCheckoutSessionOperation,
];
