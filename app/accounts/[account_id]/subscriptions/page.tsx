import type { Metadata } from "next";
import { Suspense } from "react";
import { SubscriptionList } from "@/components/subscriptions/subscription-list";
import { Loading, PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Subscriptions · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function SubscriptionsPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Subscriptions" />
      {/* SubscriptionList reads the page and filter from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading subscriptions" />}>
        <SubscriptionList accountId={account_id} />
      </Suspense>
    </>
  );
}
