import type { Metadata } from "next";
import { RequestLogPage } from "@/components/logs/request-log-page";

export const metadata: Metadata = { title: "Request · Billing Service" };

export default async function Page({ params }: { params: Promise<{ account_id: string; request_id: string }> }) {
  const { account_id, request_id } = await params;
  return <RequestLogPage accountId={account_id} requestId={decodeURIComponent(request_id)} />;
}
