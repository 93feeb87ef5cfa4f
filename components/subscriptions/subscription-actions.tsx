"use client";

import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { subscriptionActions, subscriptionFacts } from "@/lib/subscriptions/rules";
import { subscriptionQueryKeys } from "./format";
import type { Subscription } from "@/components/api-types";

/** Pause, resume and cancel, as the subscription's status allows; cancelling asks first. */
export function SubscriptionActions({ accountId, subscription }: { accountId: string; subscription: Subscription }) {
  const path = { account_id: accountId, subscription_id: subscription.id };
  const invalidate = [subscriptionQueryKeys.subscriptions(accountId), ["events", accountId]];
  // Each button shows exactly when the API accepts it (lib/subscriptions/rules.ts, read by its guards too).
  const can = subscriptionActions(subscriptionFacts(subscription));
  if (!Object.values(can).some(Boolean)) return null;
  return (
    <div className="flex flex-wrap items-center gap-2" aria-label="Subscription actions" role="group">
      {can.pause && <ApiAction label="Pause" send={() => dashboardCall("pauseSubscription", { path, body: {} })} invalidate={invalidate} />}
      {can.resume && <ApiAction label="Resume" send={() => dashboardCall("resumeSubscription", { path, body: {} })} invalidate={invalidate} />}
      {can.cancelAtPeriodEnd && (
        <ApiAction
          label="Cancel at period end"
          send={() => dashboardCall("cancelSubscription", { path, body: { at_period_end: true } })}
          invalidate={invalidate}
          confirm={{
            title: "Cancel at the end of the period?",
            body: "The subscription stays as it is until the current period ends, then cancels instead of renewing.",
            label: "Cancel at period end",
          }}
        />
      )}
      {can.cancelNow && (
        <ApiAction
          label="Cancel now"
          send={() => dashboardCall("cancelSubscription", { path, body: {} })}
          variant="danger"
          invalidate={invalidate}
          confirm={{
            title: "Cancel this subscription now?",
            body: "It ends at once and bills nothing more. This cannot be undone.",
            label: "Cancel subscription",
          }}
        />
      )}
    </div>
  );
}
