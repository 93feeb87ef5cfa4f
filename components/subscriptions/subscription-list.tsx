"use client";

import Link from "next/link";
import { CustomerName, PlanSummary, SubscriptionPlanName } from "@/components/objects/names";
import { Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { StatusBadge } from "@/components/ui";
import { dashboardCall } from "@/components/api-client";
import { StatusFilteredList } from "@/components/ui/status-list";
import { SUBSCRIPTION_STATUS_OPTIONS, subscriptionHref, subscriptionQueryKeys } from "./format";
import type { Subscription } from "@/components/api-types";
import { operationLine, operationPath } from "@/lib/operation-paths";

const linkClass = "text-indigo-700 underline hover:text-indigo-900";

/** The account's (or one customer's) subscriptions, with a status filter and pages kept in the URL. */
export function SubscriptionList({ accountId, customer }: { accountId: string; customer?: string }) {
  // On a customer's page: only theirs, under its own URL keys beside the page's other lists.
  const related = customer ? { scope: { customer }, param: "subscription_", title: "Subscriptions" } : {};
  return (
    <StatusFilteredList<Subscription, Subscription["status"]>
      list={(query) => dashboardCall("listSubscriptions", { path: { account_id: accountId }, query })}
      noun={["subscription", "subscriptions"]}
      statuses={SUBSCRIPTION_STATUS_OPTIONS}
      queryKey={subscriptionQueryKeys.subscriptions(accountId)}
      exportPath={operationPath("exportSubscriptions", { account_id: accountId })}
      head={["Subscription", "Customer", "Status", "Plan", "Current period end", "Created", "Events"]}
      {...related}
      emptyHint={customer ? "No subscriptions for this customer yet." : `No subscriptions yet. Create one with New subscription, or with ${operationLine("createSubscriptionForTokenAccount")} from your server.`}
      row={(subscription) => (
<tr key={subscription.id} className="align-top">
        <td className="px-2 py-2">
          <Link href={subscriptionHref(accountId, subscription.id)} className={`font-medium ${linkClass}`} title={subscription.id}>
            <SubscriptionPlanName accountId={accountId} items={subscription.items} />
          </Link>
          <div className="break-all font-mono text-xs text-slate-500">{subscription.id}</div>
        </td>
        <td className="px-2 py-2">
          <CustomerName accountId={accountId} id={subscription.customer} />
        </td>
        <td className="px-2 py-2">
          <StatusBadge status={subscription.status} />
        </td>
        <td className="px-2 py-2">
          {subscription.items.map((item) => (
            <PlanSummary key={item.id} accountId={accountId} priceId={item.price} quantity={item.quantity} />
          ))}
        </td>
        <td className="whitespace-nowrap px-2 py-2">
          <Time iso={subscription.current_period_end} />
        </td>
        <td className="whitespace-nowrap px-2 py-2">
          <Time iso={subscription.created} />
        </td>
        <td className="px-2 py-2">
          <Link
            href={eventsHref(accountId, { aggregate_id: subscription.id })}
            className={`whitespace-nowrap ${linkClass}`}
            title="Show this subscription's whole event timeline"
          >
            Timeline
          </Link>
        </td>
      </tr>
      )}
    />
  );
}
