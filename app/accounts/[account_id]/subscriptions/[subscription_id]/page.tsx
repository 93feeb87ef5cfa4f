import type { Metadata } from "next";
import { SubscriptionDetail } from "@/components/subscriptions/subscription-detail";

export async function generateMetadata({ params }: { params: Promise<{ subscription_id: string }> }): Promise<Metadata> {
  const { subscription_id } = await params;
  return { title: `${subscription_id} · Subscriptions · Billing Service` };
}

/** The layout has already checked the session and that the account is the user's. */
export default async function SubscriptionPage({
  params,
}: {
  params: Promise<{ account_id: string; subscription_id: string }>;
}) {
  const { account_id, subscription_id } = await params;
  return <SubscriptionDetail accountId={account_id} subscriptionId={subscription_id} />;
}
