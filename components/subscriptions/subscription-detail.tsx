"use client";

import Link from "next/link";
import { DetailItem, Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { invoiceHref } from "@/components/invoices/format";
import { CustomerName, PlanSummary, SubscriptionTitle } from "@/components/objects/names";
import { ObjectLink } from "@/components/objects/links";
import { collectionLabel } from "@/components/objects/collection-method";
import { dashboardCall } from "@/components/api-client";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { Card, CopyButton, StatusBadge, Table } from "@/components/ui";
import { subscriptionQueryKeys, subscriptionsHref } from "./format";
import { SubscriptionActions } from "./subscription-actions";
import { ChangeRequestForm } from "./change-request-form";
import { PendingChanges } from "./pending-changes";
import { UnpaidInvoiceNotice } from "./unpaid-invoice";

const linkClass = "text-sm text-indigo-700 underline hover:text-indigo-900";

function Dash() {
  return <span className="text-slate-600">—</span>;
}

/** One subscription: its status, period, items and latest invoice, and a way to its event timeline. */
export function SubscriptionDetail({ accountId, subscriptionId }: { accountId: string; subscriptionId: string }) {
  const query = useApiObject(subscriptionQueryKeys.subscription(accountId, subscriptionId), () =>
    dashboardCall("getSubscription", { path: { account_id: accountId, subscription_id: subscriptionId } }),
  );
  const back = <BackLink href={subscriptionsHref(accountId)}>Back to subscriptions</BackLink>;
  const fallback = detailFallback(query, {
    noun: "subscription",
    id: subscriptionId,
    back,
    notFoundHint: "It may belong to the other (live or sandbox) account.",
  });
  if (fallback || !query.data) return fallback;

  const subscription = query.data;
  const metadata = Object.entries(subscription.metadata);
  return (
    <>
      <div className="mb-2">{back}</div>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <h1 className="min-w-0 break-words text-xl font-semibold">
          <SubscriptionTitle accountId={accountId} subscription={subscription} />
          <span className="ml-2 break-all font-mono text-sm font-normal text-slate-600">{subscription.id}</span>
        </h1>
        <div className="flex flex-wrap items-center gap-2">
          <CopyButton value={subscription.id} label="Copy id" />
          <Link href={eventsHref(accountId, { aggregate_id: subscription.id })} className={linkClass}>
            View timeline
          </Link>
        </div>
      </div>
      <div className="space-y-4">
        <UnpaidInvoiceNotice accountId={accountId} subscription={subscription} />
        <SubscriptionActions accountId={accountId} subscription={subscription} />
        <Card title="Subscription">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Status">
              <StatusBadge status={subscription.status} />
            </DetailItem>
            <DetailItem label="Customer">
              <CustomerName accountId={accountId} id={subscription.customer} />
            </DetailItem>
            <DetailItem label="Currency">{subscription.currency.toUpperCase()}</DetailItem>
            <DetailItem label="Collection">{collectionLabel(subscription)}</DetailItem>
            <DetailItem label="Latest invoice">
              {subscription.latest_invoice ? (
                <Link
                  href={invoiceHref(accountId, subscription.latest_invoice)}
                  className={`break-all font-mono text-xs ${linkClass}`}
                >
                  {subscription.latest_invoice}
                </Link>
              ) : (
                <Dash />
              )}
            </DetailItem>
            <DetailItem label="Cancel at period end">{subscription.cancel_at_period_end ? "Yes" : "No"}</DetailItem>
            <DetailItem label="Livemode">{subscription.livemode ? "true (live)" : "false (sandbox)"}</DetailItem>
          </dl>
        </Card>
        <Card title="Dates">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Current period start">
              <Time iso={subscription.current_period_start} />
            </DetailItem>
            <DetailItem label="Current period end">
              <Time iso={subscription.current_period_end} />
            </DetailItem>
            <DetailItem label="Trial end">
              <Time iso={subscription.trial_end} />
            </DetailItem>
            <DetailItem label="Cancelled at">
              <Time iso={subscription.cancelled_at} />
            </DetailItem>
            <DetailItem label="Paused at">
              <Time iso={subscription.paused_at} />
            </DetailItem>
            <DetailItem label="Created">
              <Time iso={subscription.created} />
            </DetailItem>
            <DetailItem label="Updated">
              <Time iso={subscription.updated} />
            </DetailItem>
          </dl>
        </Card>
        <Card title="Items">
          {subscription.items.length === 0 ? (
            <p className="text-sm text-slate-600">No items.</p>
          ) : (
            <Table label="Items" head={["Price", "Quantity"]}>
              {subscription.items.map((item) => (
                <tr key={item.id} className="align-top">
                  <td className="px-2 py-2">
                    <ObjectLink accountId={accountId} id={item.price}>
                      <PlanSummary accountId={accountId} priceId={item.price} quantity={1} />
                    </ObjectLink>
                    <code className="block break-all font-mono text-xs text-slate-500">{item.price}</code>
                  </td>
                  <td className="px-2 py-2 tabular-nums">{item.quantity}</td>
                </tr>
              ))}
            </Table>
          )}
        </Card>
        <ChangeRequestForm accountId={accountId} subscription={subscription} />
        <PendingChanges accountId={accountId} subscription={subscription} />
        <Card title="Metadata">
          {metadata.length === 0 ? (
            <p className="text-sm text-slate-600">No metadata.</p>
          ) : (
            <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
              {metadata.map(([key, value]) => (
                <DetailItem key={key} label={key}>
                  <span className="whitespace-pre-wrap break-words">{value}</span>
                </DetailItem>
              ))}
            </dl>
          )}
        </Card>
      </div>
    </>
  );
}
