import { needs } from "@/lib/permissions";
import { defineOperation, type Deprecation } from "@/lib/api/operation";
import { config } from "@/lib/config";
import { Subscription } from "@/lib/subscriptions/schema";
import {
  ChangePlanInput,
  ChangeRequest,
  ChangeRequestApplyInput,
  ChangeRequestCancelInput,
  ChangeRequestCreateInput,
  ChangeRequestList,
  ChangeRequestListQuery,
} from "./schema";

const tag = "Subscription change requests";
const BASE = "/{account_id}/subscriptions/{subscription_id}/change-requests";
const UNSCOPED = "/subscriptions/{subscription_id}/change-requests";

export const createChangeRequestOperation = defineOperation({
  operationId: "createSubscriptionChangeRequest",
  method: "POST",
  path: BASE,
  unscopedPath: UNSCOPED,
  summary: "Create a subscription change request",
  description:
    "A plan of item changes (`switch_price`, `set_quantity`, `add_item`, `remove_item`), all checked now (422 naming `steps.N.field`), with a preview fixed at creation: `amount_due_now_atom` (the proration charged for the rest of the current period, never negative), `proration_amount_atom` / `proration_credit_atom` (signed; a net decrease's unused time is credited to the customer's balance, per `proration_behavior`) and `next_invoice_amount_atom`. Nothing changes until it is applied. `effective` (`now` or `period_end`; absent: the account's `plan_change_policy`) says whether applying it changes the items at once or schedules them for the renewal; a `period_end` request previews after the changes already pending, with nothing due now. 409 once the subscription is cancelled.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: ChangeRequestCreateInput,
  response: { status: 201, description: "The change request (`open`).", schema: ChangeRequest },
  errors: [404, 409, 415, 422],
});

export const listChangeRequestsOperation = defineOperation({
  operationId: "listSubscriptionChangeRequests",
  method: "GET",
  path: BASE,
  unscopedPath: UNSCOPED,
  summary: "List a subscription's change requests",
  description: "Newest first; filter `status`.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "read"),
  query: ChangeRequestListQuery,
  response: { status: 200, description: "A page of change requests.", schema: ChangeRequestList },
  errors: [404],
});

export const getChangeRequestOperation = defineOperation({
  operationId: "getSubscriptionChangeRequest",
  method: "GET",
  path: `${BASE}/{change_request_id}`,
  unscopedPath: `${UNSCOPED}/{change_request_id}`,
  summary: "Retrieve a subscription change request",
  tag,
  access: "secret",
  permission: needs("subscriptions", "read"),
  response: { status: 200, description: "The change request.", schema: ChangeRequest },
  errors: [404],
});

export const applyChangeRequestOperation = defineOperation({
  operationId: "applySubscriptionChangeRequest",
  method: "POST",
  path: `${BASE}/{change_request_id}/apply`,
  unscopedPath: `${UNSCOPED}/{change_request_id}/apply`,
  summary: "Apply a subscription change request",
  description:
    "Payment first: when `amount_due_now_atom` > 0, a proration invoice is created, finalized and paid with `payment_method` (default the subscription's `default_payment_method`; 400 when neither exists). A failed payment is a 409 that applied nothing (the request stays `open`, the invoice open for the next try). Then each step in its own transaction with its `customer.subscription.updated`; with the last one, a negative `proration_amount_atom` is credited to the customer's balance (a `proration` balance transaction, `customer.balance_transaction.created`), once even when a failed step is resumed. A step failing after the payment was collected (or after earlier steps) is a 409 `PARTIAL_APPLY_RETRYABLE` whose `detail` is a stringified object; applying again resumes at the failed step and never charges again. A `period_end` request is not paid nor applied now: it becomes `scheduled` (`subscription_change_request.scheduled`), joins the subscription's `pending_changes` (`customer.subscription.updated`) and the renewal applies it before the new period's invoice (409 when its steps no longer apply after the changes already pending). 409 once applied, scheduled or canceled.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: ChangeRequestApplyInput,
  response: { status: 200, description: "The change request (`applied`).", schema: ChangeRequest },
  errors: [404, 409, 415, 422],
});

export const cancelChangeRequestOperation = defineOperation({
  operationId: "cancelSubscriptionChangeRequest",
  method: "POST",
  path: `${BASE}/{change_request_id}/cancel`,
  unscopedPath: `${UNSCOPED}/{change_request_id}/cancel`,
  summary: "Cancel a subscription change request",
  description:
    "Open → canceled; a proration invoice left open by a failed payment is voided. Scheduled → canceled: it leaves the subscription's `pending_changes` (`customer.subscription.updated`, `subscription_change_request.canceled`). `cancellation_reason` is `requested`. 409 once the payment was collected (apply it to finish), or when applied or canceled.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: ChangeRequestCancelInput,
  response: { status: 200, description: "The change request (`canceled`).", schema: ChangeRequest },
  errors: [404, 409, 415],
});

export const CHANGE_PLAN_REPLACEMENT = `POST /api${BASE} then POST /api${BASE}/{change_request_id}/apply`;

/**
 * Read from the configuration on every access (each request, the OpenAPI document), not when this
 * module is evaluated, so the settings of the running process decide (CHANGE_PLAN_* in lib/config).
 */
function changePlanDeprecation(): Deprecation {
  return { sunset: config().changePlan.sunset, replacement: CHANGE_PLAN_REPLACEMENT, link: "/reference#tag/subscription-change-requests" };
}

export const changePlanOperation = defineOperation({
  operationId: "changeSubscriptionPlan",
  method: "POST",
  path: "/{account_id}/subscriptions/{subscription_id}/change-plan",
  unscopedPath: "/subscriptions/{subscription_id}/change-plan",
  summary: "Change a subscription's plan (deprecated)",
  description:
    "Deprecated: use subscription change requests. The subscription ends with a single item, `price` × `quantity` (default 1): a change request is created and applied at once (proration paid first with `payment_method`, default the subscription's `default_payment_method`). Answers the subscription. Responses carry `Deprecation`, `Sunset` and a `Link` to the successor; from the sunset on it answers 410.",
  tag: "Subscriptions",
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: ChangePlanInput,
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409, 415, 422],
  get deprecated() {
    return changePlanDeprecation();
  },
});

export const subscriptionChangeOperations = [
  listChangeRequestsOperation,
  createChangeRequestOperation,
  getChangeRequestOperation,
  applyChangeRequestOperation,
  cancelChangeRequestOperation,
  changePlanOperation,
];
