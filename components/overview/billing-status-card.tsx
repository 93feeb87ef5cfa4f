"use client";

import { useQuery } from "@tanstack/react-query";
import { apiFetch } from "@/components/api-client";
import { Card, ErrorBox, Loading, StatusBadge } from "@/components/ui";
import { DetailItem, Time } from "@/components/events/bits";
import { queryKeys } from "@/components/events/format";
import type { BillingStatus } from "@/components/events/types";

const STATUS_LABELS: Record<NonNullable<BillingStatus["billing_status"]>, string> = {
  active: "Active",
  trialing: "Trialing",
  past_due: "Past due",
  cancelled: "Cancelled",
  no_subscription: "No subscription",
  exempt: "Exempt",
  orphaned: "Orphaned",
};

/** "Trialing — 14 days left", "Past due", … */
export function describeBillingStatus(status: BillingStatus): string {
  if (!status.billing_status) return "No billing status";
  const label = STATUS_LABELS[status.billing_status];
  const days = status.trial_days_remaining;
  if (status.billing_status !== "trialing" || days === null || days === undefined) return label;
  if (days === 0) return `${label} — ends today`;
  return `${label} — ${days} day${days === 1 ? "" : "s"} left`;
}

const BADGE: Partial<Record<NonNullable<BillingStatus["billing_status"]>, string>> = {
  active: "active",
  exempt: "active",
  trialing: "pending",
  past_due: "retrying",
  cancelled: "failed",
  orphaned: "failed",
};

function YesNo({ value }: { value: boolean }) {
  return <span className={value ? "text-emerald-800" : "text-red-800"}>{value ? "Yes" : "No"}</span>;
}

/** The organization's standing with the platform, and which kinds of payment it may take. */
export function BillingStatusCard({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: queryKeys.billingStatus(accountId),
    queryFn: () => apiFetch<BillingStatus>(`/${accountId}/billing-status`),
  });

  return (
    <Card title="Your billing status with the platform">
      {/* Whose standing and which clock: the card sits beside the sandbox's test clock, which does not move it. */}
      <p className="mb-3 text-xs text-slate-500">
        Your organization&apos;s own subscription to this platform, not your customers&apos;. Its dates run on real time: a sandbox test clock does not change them.
      </p>
      {query.isPending ? (
        <Loading what="Loading billing status" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : (
        <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
          <DetailItem label="Status" wide>
            <span data-testid="billing-status" className="inline-flex items-center gap-2">
              <StatusBadge status={BADGE[query.data.billing_status ?? "no_subscription"] ?? "disabled"} label={describeBillingStatus(query.data)} />
            </span>
          </DetailItem>
          <DetailItem label="Customer-initiated payments (CIT) allowed">
            <YesNo value={query.data.cit_allowed} />
          </DetailItem>
          <DetailItem label="Merchant-initiated payments (MIT) allowed">
            <YesNo value={query.data.mit_allowed} />
          </DetailItem>
          <DetailItem label="CIT processing enabled">
            <YesNo value={query.data.cit_processing_enabled} />
          </DetailItem>
          <DetailItem label="MIT processing enabled">
            <YesNo value={query.data.mit_processing_enabled} />
          </DetailItem>
          <DetailItem label="Trial days remaining">{query.data.trial_days_remaining ?? "—"}</DetailItem>
          <DetailItem label="Trial ends">
            <Time iso={query.data.trial_end} />
          </DetailItem>
          <DetailItem label="Subscription ends">
            <Time iso={query.data.subscription_end} />
          </DetailItem>
        </dl>
      )}
    </Card>
  );
}
