import type { Metadata } from "next";
import { CreateMeter } from "@/components/meters/create-meter";
import { MeterList } from "@/components/meters/meter-list";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Meters · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function MetersPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Meters" />
      <CreateMeter accountId={account_id} />
      <MeterList accountId={account_id} />
    </>
  );
}
