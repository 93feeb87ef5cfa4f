import type { Metadata } from "next";
import { headers } from "next/headers";
import { BillingStatusCard } from "@/components/overview/billing-status-card";
import { DeliveryHealthCard } from "@/components/overview/delivery-health-card";
import { FirstApiCall } from "@/components/overview/first-api-call";
import { RecentEvents } from "@/components/overview/recent-events";
import { TestClockCard } from "@/components/overview/test-clock-card";
import { DisabledEndpointsNotice } from "@/components/webhooks/disabled-endpoints-notice";
import { requireAccount } from "@/app/_lib/session";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Overview · Billing Service" };

/** Only the first render's guess: the client replaces it with window.location.origin. */
async function requestOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? (/^(localhost|127\.0\.0\.1)(:|$)/.test(host) ? "http" : "https");
  return `${proto}://${host}`;
}

export default async function OverviewPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  const { account } = await requireAccount(account_id);
  return (
    <>
      <PageHeader title="Overview" />
      <DisabledEndpointsNotice accountId={account_id} />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <BillingStatusCard accountId={account_id} />
        <DeliveryHealthCard accountId={account_id} />
        <RecentEvents accountId={account_id} />
        <FirstApiCall accountId={account_id} serverOrigin={await requestOrigin()} />
        {!account.livemode && <TestClockCard accountId={account_id} />}
      </div>
    </>
  );
}
