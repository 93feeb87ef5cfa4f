import type { SubscriptionStatus } from "@/components/api-types";
import { SUBSCRIPTION_STATUSES } from "@/lib/subscriptions/statuses";

/** The statuses the list can filter by: the API's own list. */
export const SUBSCRIPTION_STATUS_OPTIONS: readonly SubscriptionStatus[] = SUBSCRIPTION_STATUSES;

export function subscriptionsHref(accountId: string): string {
  return `/accounts/${accountId}/subscriptions`;
}

export function subscriptionHref(accountId: string, subscriptionId: string): string {
  return `/accounts/${accountId}/subscriptions/${encodeURIComponent(subscriptionId)}`;
}

/** react-query keys shared by the subscription pages. */
export const subscriptionQueryKeys = {
  subscriptions: (accountId: string) => ["subscriptions", accountId] as const,
  subscription: (accountId: string, subscriptionId: string) => ["subscriptions", accountId, "one", subscriptionId] as const,
};
