/*
 * What each subscription status allows, declared once. Pure (values only, no server imports): the
 * services' 409 guards read it (core.ts assertStatus, service.ts, items.ts, renewal.ts), and so do
 * the dashboard's buttons (components/subscriptions/subscription-actions.tsx).
 */
import type { SubscriptionStatus } from "./statuses";

/** Not cancelled: a subscription in these statuses can still change, renew and be cancelled. */
export const LIVE: readonly SubscriptionStatus[] = ["trialing", "active", "past_due", "paused"];

/** The statuses each action starts from. */
export const SUBSCRIPTION_ACTION_FROM = {
  pause: ["active"],
  resume: ["paused"],
  cancel: LIVE,
  update: LIVE,
  changeItems: LIVE,
} as const satisfies Record<string, readonly SubscriptionStatus[]>;

export type SubscriptionAction = keyof typeof SUBSCRIPTION_ACTION_FROM;

export type SubscriptionFacts = { status: string; cancelAtPeriodEnd: boolean };

const from = (action: SubscriptionAction, status: string) => (SUBSCRIPTION_ACTION_FROM[action] as readonly string[]).includes(status);

export const isLive = (status: string): boolean => (LIVE as readonly string[]).includes(status);
export const canPause = (subscription: Pick<SubscriptionFacts, "status">): boolean => from("pause", subscription.status);
export const canResume = (subscription: Pick<SubscriptionFacts, "status">): boolean => from("resume", subscription.status);
export const canChangeItems = (subscription: Pick<SubscriptionFacts, "status">): boolean => from("changeItems", subscription.status);
export const canCancelNow = (subscription: Pick<SubscriptionFacts, "status">): boolean => from("cancel", subscription.status);
/** Already set to cancel at the period end: asking again changes nothing (200, no event). */
export const canCancelAtPeriodEnd = (subscription: SubscriptionFacts): boolean => from("cancel", subscription.status) && !subscription.cancelAtPeriodEnd;

/** Every action with whether the subscription allows it: what the dashboard renders from. */
export function subscriptionActions(subscription: SubscriptionFacts) {
  return {
    pause: canPause(subscription),
    resume: canResume(subscription),
    cancelAtPeriodEnd: canCancelAtPeriodEnd(subscription),
    cancelNow: canCancelNow(subscription),
  };
}

/** The facts of the API's subscription object (the dashboard's shape). */
export const subscriptionFacts = (subscription: { status: string; cancel_at_period_end: boolean }): SubscriptionFacts => ({
  status: subscription.status,
  cancelAtPeriodEnd: subscription.cancel_at_period_end,
});
