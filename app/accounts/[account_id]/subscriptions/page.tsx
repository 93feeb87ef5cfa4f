import type { Metadata } from "next";
import { Suspense } from "react";
import { SubscriptionList } from "@/components/subscriptions/subscription-list";
import { Loading, PageHeader } from "@/components/ui";
import { CreateSubscription } from "@/components/subscriptions/create-subscription";

export const metadata: Metadata = { title: "Subscriptions · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function SubscriptionsPage({
  params,
  searchParams,
}: {
  params: Promise<{ account_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account_id } = await params;
  // A customer's page links here with ?new=1&customer=cus_… to open the form for them.
  const { new: openForm, customer } = await searchParams;
  return (
    <>
      <PageHeader title="Subscriptions">
        <CreateSubscription accountId={account_id} open={openForm === "1"} customer={typeof customer === "string" ? customer : undefined} />
      </PageHeader>
      {/* SubscriptionList reads the page and filter from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading subscriptions" />}>
        <SubscriptionList accountId={account_id} />
      </Suspense>
    </>
  );
}
