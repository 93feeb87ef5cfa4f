import type { Metadata } from "next";
import { WebhooksPage } from "@/components/webhooks/webhooks-page";

export const metadata: Metadata = { title: "Webhooks · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function Page({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return <WebhooksPage accountId={account_id} />;
}
