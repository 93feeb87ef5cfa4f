// Pure (no server imports): the API's schema and the dashboard's filters read this one list.

export const SUBSCRIPTION_STATUSES = ["trialing", "active", "past_due", "paused", "cancelled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
