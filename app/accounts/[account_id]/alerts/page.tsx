import type { Metadata } from "next";
import { AlertList } from "@/components/alerts/alert-list";
import { CreateAlert } from "@/components/alerts/create-alert";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Alerts · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function AlertsPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Alerts" />
      <CreateAlert accountId={account_id} />
      <AlertList accountId={account_id} />
    </>
  );
}
