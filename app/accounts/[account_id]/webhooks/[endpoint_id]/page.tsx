import type { Metadata } from "next";
import { EndpointPage } from "@/components/webhooks/endpoint-page";

export const metadata: Metadata = { title: "Webhook endpoint · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function Page({ params }: { params: Promise<{ account_id: string; endpoint_id: string }> }) {
  const { account_id, endpoint_id } = await params;
  return <EndpointPage accountId={account_id} endpointId={endpoint_id} />;
}
