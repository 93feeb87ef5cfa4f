"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { Card, ErrorBox, Loading, StatusBadge } from "@/components/ui";
import { DetailItem, Time } from "@/components/events/bits";
import { queryKeys } from "@/components/events/format";
import type { BillingStatus } from "@/components/api-types";

/** What the two kinds of payment are, for the hover text: the terms are the card networks'. */
const CIT_MEANING =
  "Customer-initiated transactions (CIT): payments your customer makes while present, such as paying at checkout or paying an invoice.";
const MIT_MEANING =
  "Merchant-initiated transactions (MIT): payments you take without the customer present, such as subscription renewals and retries of failed payments.";

/** The headline: may this organization take payments, in plain words. */
export function describePayments(status: BillingStatus): string {
  if (status.cit_allowed && status.mit_allowed) return "Payments allowed";
  if (status.cit_allowed) return "Only payments by customers who are present are allowed";
  if (status.mit_allowed) return "Only automatic payments (renewals, retries) are allowed";
  return "Payments not allowed";
}

function days(count: number): string {
  return `${count} day${count === 1 ? "" : "s"}`;
}

/** Why, from the organization's standing with whoever runs this service. */
export function explainStanding(status: BillingStatus): string {
  switch (status.billing_status) {
    case "exempt":
      return "Your organization is not billed for using this service.";
    case "trialing": {
      const left = status.trial_days_remaining;
      return left === null || left === undefined
        ? "Your organization is on a free trial of this service."
        : left === 0
          ? "Your organization's free trial of this service ends today."
          : `Your organization is on a free trial of this service: ${days(left)} left.`;
    }
    case "active":
      return "Your organization's subscription to this service is paid up.";
    case "past_due":
      return "Your organization's subscription to this service is overdue: automatic payments are paused until it is paid.";
    case "cancelled":
      return "Your organization's subscription to this service was cancelled.";
    case "no_subscription":
    case "orphaned":
    default:
      return "Your organization has no subscription to this service. Contact the operator.";
  }
}

const BADGE: Partial<Record<NonNullable<BillingStatus["billing_status"]>, string>> = {
  active: "active",
  exempt: "active",
  trialing: "pending",
  past_due: "retrying",
  cancelled: "failed",
  orphaned: "failed",
};

function Allowed({ value, meaning, label }: { value: boolean; meaning: string; label: string }) {
  return (
    <span title={meaning} className={`cursor-help underline decoration-dotted ${value ? "text-emerald-800" : "text-red-800"}`}>
      {value ? "Allowed" : "Not allowed"}
      <span className="sr-only"> ({label})</span>
    </span>
  );
}

/** Whether the organization may take payments, and why not when it may not. */
export function BillingStatusCard({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: queryKeys.billingStatus(accountId),
    queryFn: () => dashboardCall("getBillingStatus", { path: { account_id: accountId } }),
  });

  return (
    <Card title="Payments">
      {query.isPending ? (
        <Loading what="Loading payment status" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : (
        <StatusBody status={query.data} />
      )}
    </Card>
  );
}

function StatusBody({ status }: { status: BillingStatus }) {
  const switchedOff = [
    status.cit_processing_enabled ? null : "payments by customers who are present",
    status.mit_processing_enabled ? null : "automatic payments",
  ].filter((what): what is string => what !== null);
  const allowed = status.cit_allowed && status.mit_allowed;
  return (
    <div className="space-y-3 text-sm">
      <p data-testid="billing-status" className="flex flex-wrap items-center gap-2">
        <StatusBadge status={allowed ? "active" : (BADGE[status.billing_status ?? "no_subscription"] ?? "failed")} label={describePayments(status)} />
      </p>
      <p data-testid="billing-status-reason" className="text-slate-700">
        {explainStanding(status)}
        {switchedOff.length > 0 && ` The operator has turned off ${switchedOff.join(" and ")}.`}
      </p>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2">
        <DetailItem label="Customer payments (CIT)">
          <Allowed value={status.cit_allowed} meaning={CIT_MEANING} label="customer-initiated" />
        </DetailItem>
        <DetailItem label="Automatic payments (MIT)">
          <Allowed value={status.mit_allowed} meaning={MIT_MEANING} label="merchant-initiated" />
        </DetailItem>
        {status.trial_end && (
          <DetailItem label="Trial ends">
            <Time iso={status.trial_end} />
          </DetailItem>
        )}
        {status.subscription_end && (
          <DetailItem label="Subscription ends">
            <Time iso={status.subscription_end} />
          </DetailItem>
        )}
      </dl>
    </div>
  );
}
