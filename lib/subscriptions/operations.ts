import { needs } from "@/lib/permissions";
import type { SubscriptionObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import {
  Subscription,
  SubscriptionActionInput,
  SubscriptionCancelInput,
  SubscriptionCreateInput,
  SubscriptionItemInput,
  SubscriptionItemList,
  SubscriptionItemUpdateInput,
  SubscriptionList,
  SubscriptionListQuery,
  SubscriptionUpdateInput,
} from "./schema";

const tag = "Subscriptions";
const ITEM_CHANGE =
  "Emits `customer.subscription.updated`; takes effect from the next renewal invoice (no proration). A metered item removed bills its usage so far on the next invoice; one added bills usage from now on. 409 once cancelled.";

export const listSubscriptionsOperation = defineOperation({
  operationId: "listSubscriptions",
  method: "GET",
  path: "/{account_id}/subscriptions",
  unscopedPath: "/subscriptions",
  summary: "List subscriptions",
  description: "Newest first; filters `customer` and `status`.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "read"),
  query: SubscriptionListQuery,
  response: { status: 200, description: "A page of subscriptions.", schema: SubscriptionList },
});

export const createSubscriptionOperation = defineOperation({
  operationId: "createSubscription",
  method: "POST",
  path: "/{account_id}/subscriptions",
  unscopedPath: "/subscriptions",
  summary: "Create a subscription",
  description:
    "Active recurring prices in one currency and one interval. Without a trial the first period is invoiced at once (`invoice.created`, `customer.subscription.created`, `invoice.finalized`); with `trial_period_days` or `trial_end` it is `trialing` and nothing is invoiced until the trial ends.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: SubscriptionCreateInput,
  response: { status: 201, description: "The subscription.", schema: Subscription },
  errors: [415, 422],
});

export const getSubscriptionOperation = defineOperation({
  operationId: "getSubscription",
  method: "GET",
  path: "/{account_id}/subscriptions/{subscription_id}",
  unscopedPath: "/subscriptions/{subscription_id}",
  summary: "Retrieve a subscription",
  tag,
  access: "secret",
  permission: needs("subscriptions", "read"),
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404],
});

export const updateSubscriptionOperation = defineOperation({
  operationId: "updateSubscription",
  method: "POST",
  path: "/{account_id}/subscriptions/{subscription_id}",
  unscopedPath: "/subscriptions/{subscription_id}",
  summary: "Update a subscription",
  description: "`metadata`, `cancel_at_period_end`, `default_payment_method`, `collection_method` and `days_until_due` (for the invoices it makes from then on). Emits `customer.subscription.updated` (nothing when nothing changes). 409 once cancelled.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: SubscriptionUpdateInput,
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409, 415, 422],
});

const action = (name: "pause" | "resume", summary: string, description: string) =>
  defineOperation({
    operationId: `${name}Subscription`,
    method: "POST",
    path: `/{account_id}/subscriptions/{subscription_id}/${name}`,
    unscopedPath: `/subscriptions/{subscription_id}/${name}`,
    summary,
    description,
    tag,
    access: "secret",
    permission: needs("subscriptions", "write"),
    body: SubscriptionActionInput,
    response: { status: 200, description: "The subscription.", schema: Subscription },
    errors: [404, 409, 415],
  });

export const pauseSubscriptionOperation = action(
  "pause",
  "Pause a subscription",
  "Active → paused (`customer.subscription.paused`): renewals bill nothing while paused. 409 in any other status.",
);

export const resumeSubscriptionOperation = action(
  "resume",
  "Resume a subscription",
  "Paused → active (`customer.subscription.resumed`). 409 in any other status.",
);

export const cancelSubscriptionOperation = defineOperation({
  operationId: "cancelSubscription",
  method: "POST",
  path: "/{account_id}/subscriptions/{subscription_id}/cancel",
  unscopedPath: "/subscriptions/{subscription_id}/cancel",
  summary: "Cancel a subscription",
  description:
    "Now (default): → cancelled with `cancelled_at` (`customer.subscription.cancelled`). `at_period_end: true` (or `effective: period_end`): sets `cancel_at_period_end` (`customer.subscription.updated`); the renewal then cancels. Cancelling drops the changes scheduled for the period end (`subscription_change_request.canceled`, `cancellation_reason: subscription_cancelled`); so does the renewal that cancels. 409 once cancelled.",
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: SubscriptionCancelInput,
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409, 415, 422],
});

export const listSubscriptionItemsOperation = defineOperation({
  operationId: "listSubscriptionItems",
  method: "GET",
  path: "/{account_id}/subscriptions/{subscription_id}/items",
  unscopedPath: "/subscriptions/{subscription_id}/items",
  summary: "List a subscription's items",
  tag,
  access: "secret",
  permission: needs("subscriptions", "read"),
  response: { status: 200, description: "All items (at most 20).", schema: SubscriptionItemList },
  errors: [404],
});

export const addSubscriptionItemOperation = defineOperation({
  operationId: "addSubscriptionItem",
  method: "POST",
  path: "/{account_id}/subscriptions/{subscription_id}/items",
  unscopedPath: "/subscriptions/{subscription_id}/items",
  summary: "Add an item",
  description: `An active recurring price on the subscription's currency and interval, not already an item (422 on \`price\` otherwise). ${ITEM_CHANGE}`,
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: SubscriptionItemInput,
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409, 415, 422],
});

export const updateSubscriptionItemOperation = defineOperation({
  operationId: "updateSubscriptionItem",
  method: "POST",
  path: "/{account_id}/subscriptions/{subscription_id}/items/{item_id}",
  unscopedPath: "/subscriptions/{subscription_id}/items/{item_id}",
  summary: "Change an item's quantity",
  description: ITEM_CHANGE,
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  body: SubscriptionItemUpdateInput,
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409, 415, 422],
});

export const removeSubscriptionItemOperation = defineOperation({
  operationId: "removeSubscriptionItem",
  method: "DELETE",
  path: "/{account_id}/subscriptions/{subscription_id}/items/{item_id}",
  unscopedPath: "/subscriptions/{subscription_id}/items/{item_id}",
  summary: "Remove an item",
  description: `The last item cannot be removed (409: cancel the subscription instead). ${ITEM_CHANGE}`,
  tag,
  access: "secret",
  permission: needs("subscriptions", "write"),
  response: { status: 200, description: "The subscription.", schema: Subscription },
  errors: [404, 409],
});

/** The subscriptions export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const SUBSCRIPTION_EXPORT: ExportColumns<SubscriptionObject> = {
  columns: fieldColumns<SubscriptionObject>([
    "id", "customer", "status", "currency", "current_period_start", "current_period_end", "trial_end", "cancel_at_period_end",
    "cancelled_at", "paused_at", "latest_invoice", "default_payment_method", "collection_method", "days_until_due", "items",
    "pending_changes", "metadata", "livemode", "created", "updated",
  ]),
};

export const exportSubscriptionsOperation = defineExportOperation(listSubscriptionsOperation, { operationId: "exportSubscriptions", plural: "subscriptions", columns: SUBSCRIPTION_EXPORT });

export const subscriptionOperations = [
  listSubscriptionsOperation,
  exportSubscriptionsOperation,
  createSubscriptionOperation,
  getSubscriptionOperation,
  updateSubscriptionOperation,
  pauseSubscriptionOperation,
  resumeSubscriptionOperation,
  cancelSubscriptionOperation,
  listSubscriptionItemsOperation,
  addSubscriptionItemOperation,
  updateSubscriptionItemOperation,
  removeSubscriptionItemOperation,
];
