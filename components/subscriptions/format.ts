import type { SubscriptionStatus } from "@/components/api-types";

/** The statuses the list can filter by (mirrors SUBSCRIPTION_STATUSES, which is a runtime value of a server module). */
export const SUBSCRIPTION_STATUS_OPTIONS: readonly SubscriptionStatus[] = ["trialing", "active", "past_due", "paused", "cancelled"];

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
